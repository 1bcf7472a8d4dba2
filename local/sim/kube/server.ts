import type { IncomingMessage, ServerResponse } from "node:http";
import {
  createSecureServer,
  type Http2SecureServer,
  type Http2ServerRequest,
  type Http2ServerResponse,
} from "node:http2";
import type { AddressInfo, Socket } from "node:net";
import { setImmediate as nextTurn, setTimeout as sleep } from "node:timers/promises";
import { TokenRejected, verifyEksToken } from "../aws/eks-token.ts";
import type { SimIam, SimPrincipal } from "../aws/iam.ts";
import type { ServerCertificates } from "../certs.ts";
import { type AuditLog, auditRequestOf } from "./audit.ts";
import { checkDenyRules, type DenyRule } from "./deny-rules.ts";
import {
  aggregatedContentType,
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  etagOf,
} from "./discovery.ts";
import {
  countBodyBytes,
  destroyExchange,
  injectedError,
  type PreparedReply,
  prepared,
  type Request,
  type Response,
  readBody,
  resetExchange,
  send,
} from "./exchange.ts";
import { type Faults, NO_FAULTS, StatsRecorder } from "./faults.ts";
import { type ApiReply, handleResource, parseResourcePath } from "./handlers.ts";
import { ApiError, negotiate, statusBody } from "./negotiation.ts";
import { openApiGroupVersion, openApiIndex, openApiV2 } from "./openapi.ts";
import type { ClusterState } from "./state.ts";
import { VerifiedTokenCache } from "./token-cache.ts";
import type { KubeObject, ResourceType } from "./types.ts";

export type { DenyRule } from "./deny-rules.ts";

const PUBLIC_PATHS = new Set(["/version", "/healthz", "/livez", "/readyz"]);
/** kube-apiserver's --http2-max-streams-per-connection default. */
const MAX_STREAMS_PER_CONNECTION = 1000;

export interface KubeApiServerOptions {
  clusterName: string;
  state: ClusterState;
  iam: SimIam;
  certificates: ServerCertificates;
  gitVersion: string;
  /** The clock token expiry is checked against (real time by default, independent of the object clock). */
  authNow: () => Date;
  random: () => number;
  faults?: Partial<Faults>;
  /** Where each request's audit event goes (EKS's control-plane audit log). */
  audit?: AuditLog;
  /** Called after each successful create/update/patch of an object (the simulated controllers). */
  onWrite?: (object: KubeObject) => void;
}

interface Caller {
  username: string;
  aliases: string[];
  principal: SimPrincipal;
}

/**
 * One simulated EKS API server: HTTPS on 127.0.0.1 with its own CA, EKS token auth,
 * per-user deny rules, fault injection and request statistics, in front of ClusterState.
 */
export class KubeApiServer {
  readonly stats = new StatsRecorder();
  faults: Faults;
  readonly denyRules: DenyRule[] = [];
  port = 0;
  private server?: Http2SecureServer;
  private readonly sockets = new Set<Socket>();
  private readonly verifiedTokens: VerifiedTokenCache<Caller>;
  private readonly baseFaults: Faults;
  private readonly options: KubeApiServerOptions;

  constructor(options: KubeApiServerOptions) {
    this.options = options;
    this.verifiedTokens = new VerifiedTokenCache(options.iam);
    this.baseFaults = { ...NO_FAULTS, ...options.faults };
    this.faults = { ...this.baseFaults };
  }

  setFaults(faults: Partial<Faults>): void {
    this.faults = { ...this.faults, ...faults };
  }

  clearFaults(): void {
    this.faults = { ...this.baseFaults };
  }

  async start(): Promise<number> {
    const { certificates } = this.options;
    // Like kube-apiserver: HTTP/2 when the client offers it (kubectl, helm, undici), HTTP/1.1 otherwise.
    const server = createSecureServer(
      {
        cert: certificates.certPem,
        key: certificates.keyPem,
        allowHTTP1: true,
        settings: { maxConcurrentStreams: MAX_STREAMS_PER_CONNECTION },
      },
      (h2req: Http2ServerRequest | IncomingMessage, h2res: Http2ServerResponse | ServerResponse) => {
        const req = h2req as Request;
        const res = h2res as unknown as Response;
        this.serve(req, res).catch((error) => {
          if (!res.headersSent)
            send(res, prepared(500, statusBody(500, "InternalError", `internal error: ${(error as Error).message}`)));
          else destroyExchange(req, res);
        });
      },
    );
    server.on("secureConnection", (socket: Socket) => {
      this.sockets.add(socket);
      socket.once("close", () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this.port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async serve(req: Request, res: Response): Promise<void> {
    const arrivedAt = performance.now(); // the added latency counts from here (see below)
    const receivedAt = this.options.state.now();
    const url = new URL(req.url ?? "/", "https://127.0.0.1");
    const startedAt = Date.now();
    let user = "";
    this.stats.begin(url.pathname);
    let recorded = false;
    const record = (status: number) => {
      if (recorded) return;
      recorded = true;
      this.stats.end({
        method: req.method ?? "GET",
        path: url.pathname,
        query: url.search.replace(/^\?/, ""),
        accept: String(req.headers.accept ?? ""),
        status,
        user,
        startedAt,
        durationMs: Date.now() - startedAt,
      });
    };
    countBodyBytes(res, (bytes) => this.stats.addBytes(bytes));
    res.on("finish", () => record(res.statusCode));
    res.on("close", () => record(res.writableFinished ? res.statusCode : 0));

    const faults = this.faults;
    const faulty = faults.match ? faults.match(url.pathname, url.searchParams) : true;
    const delay = faulty ? faults.latencyMs + (faults.jitterMs > 0 ? this.options.random() * faults.jitterMs : 0) : 0;
    // The added latency stands for the network between a remote client and a multi-core API server, whose work
    // on a request overlaps it. So it counts from the request's arrival, not from when this one thread got round
    // to it: the other requests that came in with this one (a wave of HTTP/2 streams arrives in one read, and
    // each handler's continuations would otherwise run before the next stream's handler) are stamped before any
    // is worked on, and a read is answered on arrival, its answer sent when the latency is over. A write still
    // takes effect after the delay (and not at all when a fault below answers it).
    if (delay > 0) await nextTurn();
    const body = await readBody(req);
    // Authenticated first only so the request log names the caller; a bad token still meets the faults.
    let caller: Caller | undefined;
    let rejected = false;
    try {
      caller = await this.authenticate(req.headers.authorization, url.pathname);
      user = caller?.username ?? "";
    } catch (error) {
      if (!(error instanceof TokenRejected)) throw error;
      rejected = true;
    }
    const read = req.method === "GET" || req.method === "HEAD";
    let answer = read ? this.answer(req, url, body, caller, rejected) : undefined;
    const wait = arrivedAt + delay - performance.now();
    if (wait > 0) await sleep(wait);
    if (faulty) {
      if (faults.resetRate > 0 && this.options.random() < faults.resetRate) {
        resetExchange(req);
        return;
      }
      if (faults.errorRate > 0 && this.options.random() < faults.errorRate) {
        send(res, injectedError(faults));
        return;
      }
    }
    answer ??= this.answer(req, url, body, caller, rejected);
    if (caller && this.options.audit?.enabled) {
      // Answered requests of an authenticated caller; injected faults never reached the API server.
      const reply = "stream" in answer ? { status: 200 } : { status: answer.status, payload: answer.payload };
      const { state } = this.options;
      this.options.audit.record(auditRequestOf(req, url, body, caller.principal, reply, receivedAt, state));
    }
    if ("stream" in answer) {
      answer.stream(res);
      return;
    }
    await send(res, answer, faulty ? faults.slowBodyMs : 0);
  }

  /** The reply to a request, its body serialized; a watch's stream starts only when it is sent. */
  private answer(
    req: Request,
    url: URL,
    body: Buffer,
    caller: Caller | undefined,
    rejected: boolean,
  ): PreparedReply | { stream: NonNullable<ApiReply["stream"]> } {
    if (rejected) return prepared(401, statusBody(401, "Unauthorized", "Unauthorized"));
    let reply: ApiReply;
    try {
      reply = this.route(req, url, body, caller);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return prepared(error.status.code, error.status, error.headers);
    }
    if (reply.stream) return { stream: reply.stream };
    if (reply.status === 304) return { status: 304, headers: reply.headers ?? {} };
    return prepared(reply.status, reply.body, reply.headers);
  }

  private async authenticate(header: string | undefined, path: string): Promise<Caller | undefined> {
    const token = /^Bearer\s+(.+)$/i.exec(header ?? "")?.[1]?.trim();
    if (!token) {
      if (PUBLIC_PATHS.has(path)) return undefined;
      throw new TokenRejected("no bearer token");
    }
    const { iam, clusterName, authNow } = this.options;
    const now = authNow();
    const cached = this.verifiedTokens.get(token, now);
    if (cached) return cached;
    const principal = await verifyEksToken(iam, token, clusterName, now);
    const shortName = principal.canonicalArn.split("/").pop() ?? "";
    const caller = { username: principal.arn, aliases: [principal.arn, principal.canonicalArn, shortName], principal };
    this.verifiedTokens.remember(token, principal.accessKeyId, caller);
    return caller;
  }

  private route(req: Request, url: URL, body: Buffer, caller: Caller | undefined): ApiReply {
    const { state } = this.options;
    const path = url.pathname.replace(/\/+$/, "") || "/";
    const accept = req.headers.accept;
    if (PUBLIC_PATHS.has(path)) {
      if (path === "/version") return { status: 200, body: this.versionInfo() };
      return { status: 200, body: "ok", headers: { "content-type": "text/plain; charset=utf-8" } };
    }
    if (!caller) throw new ApiError(401, "Unauthorized", "Unauthorized");
    if (path === "/api" || path === "/apis") {
      const representation = negotiate(accept, { discovery: true });
      if (!representation)
        throw new ApiError(
          406,
          "NotAcceptable",
          "only the following media types are accepted: application/json, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
        );
      if (representation.kind === "discovery") {
        const document = JSON.stringify(aggregatedDiscovery(state.registry, path === "/api", representation.version));
        const etag = etagOf(document);
        const headers = {
          "content-type": aggregatedContentType(representation.version),
          etag,
          vary: "Accept",
          "cache-control": "public",
        };
        if (req.headers["if-none-match"] === etag) return { status: 304, headers };
        return { status: 200, body: document, headers };
      }
      const serverAddress = `127.0.0.1:${this.port}`;
      return { status: 200, body: path === "/api" ? apiVersions(serverAddress) : apiGroupList(state.registry) };
    }
    const parts = path.split("/").filter(Boolean);
    const discoveryPath = (parts[0] === "api" && parts.length === 2) || (parts[0] === "apis" && parts.length <= 3);
    if (discoveryPath) {
      if (!negotiate(accept, {}))
        throw new ApiError(406, "NotAcceptable", "only the following media types are accepted: application/json");
      const document =
        parts[0] === "api"
          ? apiResourceList(state.registry, "", parts[1])
          : parts.length === 2
            ? apiGroup(state.registry, parts[1])
            : apiResourceList(state.registry, parts[1], parts[2]);
      if (!document) throw new ApiError(404, "NotFound", "the server could not find the requested resource", {});
      return { status: 200, body: document };
    }
    if (parts[0] === "openapi" && parts[1] === "v2" && parts.length === 2) {
      const { body, contentType } = openApiV2(this.versionInfo().gitVersion, accept);
      return { status: 200, body, headers: { "content-type": contentType } };
    }
    if (parts[0] === "openapi" && parts[1] === "v3") {
      if (parts.length === 2) return { status: 200, body: openApiIndex(state.registry) };
      const [group, version] = parts[2] === "api" ? ["", parts[3]] : [parts[3], parts[4]];
      const document = openApiGroupVersion(state.registry, group ?? "", version ?? "", this.versionInfo().gitVersion);
      if (document) return { status: 200, body: document };
    }
    const resourcePath = parseResourcePath(path, state);
    if (!resourcePath) throw new ApiError(404, "NotFound", "the server could not find the requested resource", {});
    const reply = handleResource(
      state,
      resourcePath,
      {
        method: req.method ?? "GET",
        query: url.searchParams,
        accept,
        contentType: req.headers["content-type"],
        userAgent: req.headers["user-agent"],
        body,
      },
      (verb, type, namespace, name, subresource) => this.authorize(caller, verb, type, namespace, name, subresource),
    );
    const { onWrite } = this.options;
    const written = reply.body as KubeObject | undefined;
    const write = req.method === "POST" || req.method === "PUT" || req.method === "PATCH";
    if (onWrite && write && reply.status < 300 && written?.kind && resourcePath.subresource !== "status") {
      // Controllers react after the write, not inside it (the client's answer is the object as written).
      setImmediate(() => {
        try {
          onWrite(written);
        } catch {
          // A controller that cannot make sense of an object leaves it as written (a real one would log and retry).
        }
      });
    }
    return reply;
  }

  private authorize(
    caller: Caller,
    verb: string,
    type: ResourceType,
    namespace?: string,
    name?: string,
    subresource?: string,
  ): void {
    checkDenyRules(this.denyRules, caller, { verb, type, namespace, name, subresource });
  }

  versionInfo() {
    const { state, gitVersion } = this.options;
    return {
      major: String(state.version.major),
      minor: String(state.version.minor),
      emulationMajor: String(state.version.major),
      emulationMinor: String(state.version.minor),
      gitVersion,
      gitCommit: "5ad5f3a7b4c1d2e8f9a0b1c2d3e4f5a6b7c8d9e0",
      gitTreeState: "clean",
      buildDate: "2026-01-15T00:00:00Z",
      goVersion: "go1.24.9",
      compiler: "gc",
      platform: "linux/amd64",
    };
  }
}
