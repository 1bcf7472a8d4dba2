import { IsomorphicFetchHttpLibrary, type KubeConfig, RequestContext } from "@kubernetes/client-node";

/**
 * GETs against one cluster on the connection pool @kubernetes/client-node
 * builds: `KubeConfig.applySecurityAuthentication` sets the bearer token and
 * builds the TLS dispatcher (CA from the kubeconfig, verification on,
 * keep-alive, proxy when the kubeconfig names one). Nothing here touches TLS or
 * credentials by hand.
 *
 * The request itself goes through the dispatcher's own `request` method, not
 * the library's fetch-based HttpLibrary: fetch builds a Request, Headers and
 * web streams per call, which cost ≈ 40% more CPU per GET in the status
 * benchmark (docs/bench.md), and a status sends 50 of them in bursts of 16.
 * Only a kubeconfig that yields no dispatcher (no CA, no client certificate:
 * the system's CAs) still uses the library's fetch path.
 *
 * The library builds a new dispatcher (connection pool) on every
 * applySecurityAuthentication call, which would mean one TLS handshake per GET.
 * So the authentication is applied once per KubeConfig and its dispatcher kept
 * at module level, per cluster: a warm Lambda reuses the open connections, and a
 * new KubeConfig (token rotated, 401) replaces and closes the old pool.
 */

export interface KubeResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface KubeRequester {
  readonly server: string;
  /** `pathAndQuery` starts with `/`. Rejects on network errors and on `signal` abort (with the signal's reason). */
  get(pathAndQuery: string, accept: string, signal: AbortSignal): Promise<KubeResponse>;
}

type Dispatcher = NonNullable<ReturnType<RequestContext["getDispatcher"]>>;

interface Connection {
  kubeConfig: KubeConfig;
  server: string;
  headers: Record<string, string>;
  dispatcher: Dispatcher | undefined;
}

const USER_AGENT = "helm-status-lambda";
const connections = new Map<string, Connection>();
const fetchLibrary = new IsomorphicFetchHttpLibrary();

export async function requesterFor(cluster: string, kubeConfig: KubeConfig): Promise<KubeRequester> {
  let connection = connections.get(cluster);
  if (connection?.kubeConfig !== kubeConfig) {
    const previous = connection;
    connection = await connect(kubeConfig);
    connections.set(cluster, connection);
    if (previous) void closeDispatcher(previous.dispatcher);
  }
  return connection.dispatcher ? dispatcherRequester(connection, connection.dispatcher) : fetchRequester(connection);
}

function dispatcherRequester(connection: Connection, dispatcher: Dispatcher): KubeRequester {
  const { server } = connection;
  const origin = new URL(server).origin;
  // The server URL may carry a path prefix (a proxy in front of the API server).
  const prefix = server.slice(origin.length);
  return {
    server,
    async get(pathAndQuery, accept, signal) {
      try {
        const response = await dispatcher.request({
          origin,
          path: prefix + pathAndQuery,
          method: "GET",
          headers: { ...connection.headers, accept, "user-agent": USER_AGENT },
          signal,
        });
        const body = await response.body.text();
        return { status: response.statusCode, headers: flatHeaders(response.headers), body };
      } catch (error) {
        // The session tells a timeout from a deadline by the signal's reason, as with fetch.
        if (signal.aborted) throw signal.reason;
        throw new Error(`GET ${server}${pathAndQuery} failed`, { cause: error });
      }
    },
  };
}

function fetchRequester(connection: Connection): KubeRequester {
  const { server, headers } = connection;
  return {
    server,
    async get(pathAndQuery, accept, signal) {
      const context = new RequestContext(server + pathAndQuery, "GET");
      for (const [key, value] of Object.entries(headers)) context.setHeaderParam(key, value);
      context.setHeaderParam("Accept", accept);
      context.setHeaderParam("User-Agent", USER_AGENT);
      context.setSignal(signal);
      const response = await fetchLibrary.send(context).toPromise();
      const body = await response.body.text();
      return { status: response.httpStatusCode, headers: response.headers, body };
    },
  };
}

function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const key in headers) {
    const value = headers[key];
    if (value !== undefined) flat[key] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}

async function connect(kubeConfig: KubeConfig): Promise<Connection> {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error("the kubeconfig has no current cluster");
  const server = cluster.server.replace(/\/+$/, "");
  // A throwaway context only to collect what the library applies: headers and dispatcher.
  const probe = new RequestContext(`${server}/`, "GET");
  await kubeConfig.applySecurityAuthentication(probe);
  // Lower-case names, so the per-request accept/user-agent cannot end up duplicated.
  const headers = Object.fromEntries(
    Object.entries(probe.getHeaders()).map(([name, value]) => [name.toLowerCase(), value]),
  );
  return { kubeConfig, server, headers, dispatcher: probe.getDispatcher() };
}

async function closeDispatcher(dispatcher: Dispatcher | undefined): Promise<void> {
  try {
    await dispatcher?.close();
  } catch {
    // Closing an idle pool can only fail if it is already closed.
  }
}

/** Closes every kept connection pool (tests, benchmarks, CLI exit); later calls reconnect. */
export async function closeKubeConnections(): Promise<void> {
  const all = [...connections.values()];
  connections.clear();
  await Promise.all(all.map((connection) => closeDispatcher(connection.dispatcher)));
}
