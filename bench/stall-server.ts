import {
  createServer as createHttpServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import {
  createSecureServer,
  type Http2SecureServer,
  type Http2ServerRequest,
  type Http2ServerResponse,
} from "node:http2";
import { createServer as createNetServer, type LookupFunction, type Server as NetServer, Socket } from "node:net";
import { Worker } from "node:worker_threads";
import { makeServerCertificates, type ServerCertificates } from "../local/sim/certs.ts";
import type { ClusterConnector } from "../shared/clusters/connector.ts";

/**
 * A loopback "API server" that goes silent at one stage of a request (issue #25 item 1), for the tests
 * (test/kube/silent-server.test.ts) and `npm run soak`:
 * - `dns`: the name never resolves (the lookup the pool is given never calls back: no real resolver can be
 *   made to stall on loopback);
 * - `connect`: SYNs are dropped: a listener whose accept queue is full (a worker thread listens with backlog 0
 *   and then blocks its event loop, so nothing is accepted; two filler connections fill the queue);
 * - `tls`: TCP is accepted, the TLS handshake never gets an answer;
 * - `headers`: TLS (h2 or http/1.1 by ALPN) completes, the request is never answered;
 * - `body`: the status line and headers are sent, the body stops after its first bytes.
 * TLS servers offer h2 and http/1.1 (the client picks); `secure: false` is a plain http:// server (kubectl proxy),
 * which has no tls stage.
 */

export type SilentStage = "dns" | "connect" | "tls" | "headers" | "body";
export const SILENT_STAGES: readonly SilentStage[] = ["dns", "connect", "tls", "headers", "body"];

export interface StallServer {
  readonly stage: SilentStage;
  /** `https://…` or `http://…` (the dns stage's host name never resolves). */
  readonly server: string;
  readonly caPem: string;
  /** For the dns stage: the resolver the pool must use (never answers); undefined otherwise. */
  readonly lookup?: LookupFunction;
  /** Requests that reached the handler (headers/body stages). */
  readonly requests: number;
  close(): Promise<void>;
}

/** A connector for cluster "silent" whose API server is `stall`. */
export function stallConnector(stall: StallServer): ClusterConnector {
  return {
    list: () => [{ name: "silent", region: "eu-west-1" }],
    access: async () => ({ server: stall.server, ca: stall.caPem, headers: { authorization: "Bearer t" } }),
    invalidate: () => {},
  };
}

let certificates: Promise<ServerCertificates> | undefined;
const sharedCertificates = () => {
  certificates ??= makeServerCertificates("stall");
  return certificates;
};

export async function startStallServer(stage: SilentStage, options: { secure?: boolean } = {}): Promise<StallServer> {
  const secure = options.secure ?? true;
  if (!secure && stage === "tls") throw new Error("a plain http:// server has no TLS stage");
  const certs = await sharedCertificates();
  const scheme = secure ? "https" : "http";
  if (stage === "connect") return fullAcceptQueue(certs.caPem, scheme);
  const sockets = new Set<Socket>();
  let requests = 0;
  let server: NetServer | Http2SecureServer | HttpServer;
  const onRequest = (_request: unknown, response: ServerResponse | Http2ServerResponse) => {
    requests++;
    if (stage === "body") {
      // The compatibility API of node:http2 mirrors node:http's: one shape for both.
      const answer = response as ServerResponse;
      answer.writeHead(200, { "content-type": "application/json" });
      answer.write('{"kind":"Table","apiVersion":"meta.k8s.io/v1","rows":[');
    }
    // headers: nothing at all, ever.
  };
  if (stage === "dns" || stage === "tls") {
    server = createNetServer((socket) => {
      // Read and drop the ClientHello; never answer it.
      sockets.add(socket);
      socket.on("data", () => {});
      socket.on("error", () => {});
      socket.on("close", () => sockets.delete(socket));
    });
  } else {
    const http = secure
      ? createSecureServer({ cert: certs.certPem, key: certs.keyPem, allowHTTP1: true })
      : createHttpServer();
    http.on("connection", (socket: Socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });
    http.on(
      "request",
      (request: IncomingMessage | Http2ServerRequest, response: ServerResponse | Http2ServerResponse) =>
        onRequest(request, response),
    );
    server = http;
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const host = stage === "dns" ? "silent-dns.invalid" : "127.0.0.1";
  return {
    stage,
    server: `${scheme}://${host}:${port}`,
    caPem: certs.caPem,
    lookup: stage === "dns" ? () => {} : undefined,
    get requests() {
      return requests;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The connect stage: a worker thread listens (backlog 0) and blocks its loop until told to stop. */
async function fullAcceptQueue(caPem: string, scheme: string): Promise<StallServer> {
  const gate = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(
    `const { createServer } = require("node:net");
     const { parentPort, workerData } = require("node:worker_threads");
     const server = createServer().listen({ port: 0, host: "127.0.0.1", backlog: 0 }, () => {
       parentPort.postMessage(server.address().port);
       // The loop stops here: nothing is accepted until the gate opens, then the worker ends.
       Atomics.wait(workerData.gate, 0, 0);
       server.close();
       process.exit(0);
     });`,
    { eval: true, workerData: { gate } },
  );
  const port = await new Promise<number>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  // Fill the accept queue (backlog 0 holds one, Linux allows one more in flight): later SYNs are dropped.
  const fillers: Socket[] = [];
  for (let i = 0; i < 3; i++) {
    const filler = new Socket();
    filler.on("error", () => {});
    filler.connect(port, "127.0.0.1");
    fillers.push(filler);
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  return {
    stage: "connect",
    server: `${scheme}://127.0.0.1:${port}`,
    caPem,
    requests: 0,
    async close() {
      for (const filler of fillers) filler.destroy();
      Atomics.store(gate, 0, 1);
      Atomics.notify(gate, 0);
      await new Promise((resolve) => worker.once("exit", resolve));
    },
  };
}
