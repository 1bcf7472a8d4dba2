/**
 * Worker thread for status-canned.ts: an HTTP/2 server on 127.0.0.1 that answers each recorded path with the
 * simulator's recorded status, content type and body, `latencyMs` after the request arrived, and does nothing
 * else (no auth, no state, no JSON): the floor of any server that answers on one connection.
 */
import { createSecureServer } from "node:http2";
import { parentPort, workerData } from "node:worker_threads";

export interface CannedAnswer {
  status: number;
  contentType: string;
  body: string;
}

export interface CannedServerData {
  certPem: string;
  keyPem: string;
  latencyMs: number;
  /** By path and query, as the client sends `:path`. */
  answers: Record<string, CannedAnswer>;
}

const data = workerData as CannedServerData;
const answers = new Map(
  Object.entries(data.answers).map(([path, answer]) => [path, { ...answer, bytes: Buffer.from(answer.body) }]),
);
const server = createSecureServer({ cert: data.certPem, key: data.keyPem, settings: { maxConcurrentStreams: 1000 } });
server.on("stream", (stream, headers) => {
  const arrivedAt = performance.now();
  const answer = answers.get(String(headers[":path"]));
  const reply = () => {
    if (stream.destroyed) return;
    if (!answer) {
      stream.respond({ ":status": 404 });
      stream.end();
      return;
    }
    stream.respond({ ":status": answer.status, "content-type": answer.contentType });
    stream.end(answer.bytes);
  };
  const wait = arrivedAt + data.latencyMs - performance.now();
  if (wait > 0) setTimeout(reply, wait);
  else reply();
});
server.on("sessionError", () => {});
server.listen(0, "127.0.0.1", () => parentPort?.postMessage({ port: (server.address() as { port: number }).port }));
parentPort?.on("message", (message) => {
  if (message === "stop") server.close(() => process.exit(0));
});
