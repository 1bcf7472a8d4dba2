import { createHash } from "node:crypto";
import type { Agent as HttpAgent } from "node:http";
import type { LookupFunction } from "node:net";
import { createSecureContext, type SecureContext } from "node:tls";
import type { Dispatcher } from "undici";
import type UndiciAgent from "undici/lib/dispatcher/agent.js";
import type { ClusterAccess } from "../clusters/connector.ts";
import { agentRequester, dispatcherRequester, type KubeRequester, type KubeResponse, nodeHttp } from "./requesters.ts";

export type { KubeRequester, KubeResponse };

/**
 * GETs against clusters, one bounded connection pool per cluster, owned by a
 * KubeReader (reader.ts) and closed with it.
 *
 * What to send comes from the cluster's connector as a ClusterAccess (server,
 * CA, client certificate, headers), so nothing here interprets credentials and
 * no kubeconfig library is loaded on this path. For https the pool is undici's
 * Agent with `connections` capped — under 200 concurrent statuses an uncapped
 * Agent opened ~1,000 connections to one API server — and one TLS SecureContext
 * per cluster, built once from the access's CA and client certificate (the
 * system CAs when it has none). HTTP/2 when the server offers it, as kubectl
 * does: a status's whole wave on one connection (HTTP/1.1 needed one TLS
 * handshake per read of a cold wave: ≈ 1.6 ms of CPU each on this side, as much
 * again on the server's). Certificate verification is always on:
 * rejectUnauthorized is never set, a kubeconfig asking to skip it is refused by
 * its connector. The GET goes through the dispatcher's core `dispatch()`
 * (requesters.ts; fetch's Request/Headers/web streams per call cost ≈ 40% more
 * CPU).
 *
 * Plain `http://` servers (kubectl proxy, local test servers) go through Node's
 * keep-alive http.Agent with `maxSockets`: no TLS is involved, so nothing is
 * skipped. A cluster behind a `proxy-url` uses the dispatcher its connector
 * built (it knows HTTP and SOCKS proxies); the per-cluster in-flight limit
 * bounds its connections.
 *
 * New access for a cluster (token rotated, 401) keeps the pool when only the
 * headers changed, and replaces (and closes) it when the server or TLS material
 * did.
 */

export interface PoolOptions {
  /** Sockets per cluster (default 128: one per request in flight under the default per-cluster limit). */
  maxSockets?: number;
  /** Idle sockets kept open per cluster (default: maxSockets, so one wave's sockets serve the next). */
  maxFreeSockets?: number;
  /** Offer HTTP/2 to https servers (default true); false keeps every cluster on HTTP/1.1 (`DISABLE_HTTP2`). */
  http2?: boolean;
  /** How API server names are resolved (default: the system's, dns.lookup). */
  lookup?: LookupFunction;
}

interface Pool {
  /** Server URL + TLS material: a change means a new pool. */
  identity: string;
  agent?: HttpAgent;
  dispatcher?: Dispatcher;
  opened: number;
}

interface Connection {
  access: ClusterAccess;
  requester: KubeRequester;
}

export const DEFAULT_MAX_SOCKETS = 128;
/** An idle socket is closed after this (EKS's load balancer keeps idle connections 350 s). */
const IDLE_SOCKET_MS = 60_000;
/** Matches client-go and the library's own choice: an idle socket is probed before an ELB drops it (60 s). */
const KEEP_ALIVE_MS = 30_000;
const H2_CONNECTION_WINDOW = 16 * 2 ** 20;
const H2_STREAM_WINDOW = 4 * 2 ** 20;
type UndiciH2Options = NonNullable<ConstructorParameters<typeof UndiciAgent>[0]>["h2Options"];

export class ConnectionPools {
  private readonly connections = new Map<string, Connection>();
  private readonly pools = new Map<string, Pool>();
  private readonly maxSockets: number;
  private readonly maxFreeSockets: number;
  private readonly http2: boolean;
  private readonly lookup?: LookupFunction;
  private closed = false;

  constructor(options: PoolOptions = {}) {
    this.maxSockets = Math.max(1, options.maxSockets ?? DEFAULT_MAX_SOCKETS);
    this.maxFreeSockets = Math.max(0, options.maxFreeSockets ?? this.maxSockets);
    this.http2 = options.http2 ?? true;
    this.lookup = options.lookup;
  }

  /** The requester for `cluster` with these credentials, on the cluster's pool. */
  async requester(cluster: string, access: ClusterAccess): Promise<KubeRequester> {
    const cached = this.cachedRequester(cluster, access);
    if (cached) return cached;
    const undici = await undiciAgent();
    // From here on synchronous: concurrent first callers find the pool the first of them made.
    return this.cachedRequester(cluster, access) ?? this.connect(cluster, access, undici);
  }

  /** Sockets opened so far per cluster (diagnostics, the benchmark). */
  opened(cluster: string): number {
    return this.pools.get(cluster)?.opened ?? 0;
  }

  /** Closes every pool; idempotent. Later requests fail. */
  async close(): Promise<void> {
    this.closed = true;
    const pools = [...this.pools.values()];
    this.pools.clear();
    this.connections.clear();
    await Promise.all(pools.map(closePool));
  }

  private cachedRequester(cluster: string, access: ClusterAccess): KubeRequester | undefined {
    if (this.closed) throw new Error("the kube reader is closed");
    const known = this.connections.get(cluster);
    return known?.access === access ? known.requester : undefined;
  }

  private connect(cluster: string, access: ClusterAccess, undici: UndiciModules): KubeRequester {
    const requester = this.pooledRequester(cluster, access, undici);
    this.connections.set(cluster, { access, requester });
    return requester;
  }

  private pooledRequester(cluster: string, access: ClusterAccess, undici: UndiciModules): KubeRequester {
    const { server, headers } = access;
    const url = new URL(server);
    if (url.protocol !== "https:" && url.protocol !== "http:") {
      throw new Error(`unsupported server URL scheme ${url.protocol} (https:// or http://)`);
    }
    if (access.proxy) return this.connectThroughProxy(cluster, access.proxy, server, headers, undici.queuedAbort);
    const tls = url.protocol === "https:";
    const identity = JSON.stringify([
      server,
      tls ? fingerprint(access.ca) : "",
      tls ? fingerprint(access.cert) : "",
      tls ? fingerprint(access.key) : "",
      tls ? fingerprint(access.pfx) : "",
      access.servername ?? "",
    ]);
    let pool = this.pools.get(cluster);
    if (pool?.identity !== identity) {
      const previous = pool;
      const agentOptions = {
        keepAlive: true,
        keepAliveMsecs: KEEP_ALIVE_MS,
        maxSockets: this.maxSockets,
        maxFreeSockets: this.maxFreeSockets,
        // Node's Agent destroys a free socket when this fires; a request in flight has its own timeout.
        timeout: IDLE_SOCKET_MS,
        scheduling: "lifo" as const,
        ...(this.lookup ? { lookup: this.lookup } : {}),
      };
      let created: Pool;
      if (tls) {
        // One SecureContext per cluster: no CA parsing per connection; the system CAs when the kubeconfig has none.
        const secureContext: SecureContext = createSecureContext({
          ca: access.ca,
          cert: access.cert,
          key: access.key,
          pfx: access.pfx,
          passphrase: access.passphrase,
        });
        const dispatcher = new undici.Agent({
          connections: this.maxSockets,
          keepAliveTimeout: IDLE_SOCKET_MS,
          // HTTP/2 when the server offers it (kube-apiserver does): every read of a wave on one connection, one
          // TLS handshake per cluster instead of one per read. undici's pool lets a first connection learn the
          // protocol while the wave waits, then multiplexes (h2) or fans out up to `connections` sockets (h1).
          allowH2: this.http2,
          h2Options: {
            // One connection can carry the whole per-cluster limit; the server's SETTINGS may lower it
            // (kube-apiserver allows 1,000 streams per connection, Go's default is 250).
            maxConcurrentStreams: this.maxSockets,
            // Go's HTTP/2 client windows (client-go): large lists and many parallel bodies never wait for
            // WINDOW_UPDATEs at 20+ ms of RTT. They are credit, not buffers.
            connectionWindowSize: H2_CONNECTION_WINDOW,
            initialWindowSize: H2_STREAM_WINDOW,
          } as UndiciH2Options,
          connect: {
            secureContext,
            servername: access.servername,
            keepAlive: true,
            keepAliveInitialDelay: KEEP_ALIVE_MS,
            preferH2: this.http2,
            ...(this.lookup ? { lookup: this.lookup } : {}),
          },
        });
        created = { identity, dispatcher, opened: 0 };
        dispatcher.on("connect", () => {
          created.opened++;
        });
      } else {
        const agent = new (nodeHttp().Agent)(agentOptions);
        created = { identity, agent, opened: 0 };
        countSockets(agent, created);
      }
      pool = created;
      this.pools.set(cluster, pool);
      if (previous) void closePool(previous);
    }
    if (pool.dispatcher) return dispatcherRequester(server, headers, pool.dispatcher, undici.queuedAbort);
    return agentRequester(server, headers, pool.agent as HttpAgent);
  }

  /** `proxy-url` clusters: the connector's dispatcher knows HTTP/SOCKS proxies. */
  private connectThroughProxy(
    cluster: string,
    dispatcher: Dispatcher,
    server: string,
    headers: Record<string, string>,
    queuedAbort: symbol,
  ): KubeRequester {
    const previous = this.pools.get(cluster);
    if (previous?.dispatcher !== dispatcher) {
      this.pools.set(cluster, { identity: `proxy:${server}`, dispatcher, opened: 0 });
      if (previous) void closePool(previous);
    }
    return dispatcherRequester(server, headers, dispatcher, queuedAbort);
  }
}

interface UndiciModules {
  Agent: typeof UndiciAgent;
  /** The dispatch option through which a queued request can be aborted (requesters.ts). */
  queuedAbort: symbol;
}

let agentModule: Promise<UndiciModules> | undefined;

/**
 * undici's Agent module (with its HTTP/1.1 and HTTP/2 clients, node:tls and node:http2), loaded when the first
 * https pool is made: a Lambda's routes that read no cluster (list, history, snapshots) never load it, and the
 * cold import of the handler does not wait for it.
 */
function undiciAgent(): Promise<UndiciModules> {
  agentModule ??= Promise.all([import("undici/lib/dispatcher/agent.js"), import("undici/lib/core/symbols.js")]).then(
    ([agent, symbols]) => ({ Agent: agent.default, queuedAbort: symbols.default.kQueuedAbort }),
  );
  return agentModule;
}

function countSockets(agent: HttpAgent, pool: Pool): void {
  const original = agent.createConnection.bind(agent) as (...args: unknown[]) => unknown;
  (agent as unknown as { createConnection: (...args: unknown[]) => unknown }).createConnection = (...args) => {
    pool.opened++;
    return original(...args);
  };
}

/** A digest, so the pool's identity holds no copy of a private key. */
function fingerprint(material: unknown): string {
  if (material === undefined || material === null) return "";
  const hash = createHash("sha256");
  for (const part of Array.isArray(material) ? material : [material])
    hash.update(Buffer.isBuffer(part) ? part : String(part));
  return hash.digest("base64");
}

async function closePool(pool: Pool): Promise<void> {
  pool.agent?.destroy();
  try {
    await pool.dispatcher?.close();
  } catch {
    // Closing an idle pool can only fail if it is already closed.
  }
}
