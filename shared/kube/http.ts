import { IsomorphicFetchHttpLibrary, type KubeConfig, RequestContext } from "@kubernetes/client-node";

/**
 * GETs against one cluster through @kubernetes/client-node's own plumbing:
 * `KubeConfig.applySecurityAuthentication` sets the bearer token and builds the
 * TLS dispatcher (CA from the kubeconfig, verification on, keep-alive), and the
 * library's fetch-based HttpLibrary sends the request. Nothing here touches TLS
 * or credentials by hand.
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
  /** `pathAndQuery` starts with `/`. Rejects on network errors and on `signal` abort. */
  get(pathAndQuery: string, accept: string, signal: AbortSignal): Promise<KubeResponse>;
}

type Dispatcher = ReturnType<RequestContext["getDispatcher"]>;

interface Connection {
  kubeConfig: KubeConfig;
  server: string;
  headers: Record<string, string>;
  dispatcher: Dispatcher;
}

const USER_AGENT = "helm-status-lambda";
const connections = new Map<string, Connection>();
const http = new IsomorphicFetchHttpLibrary();

export async function requesterFor(cluster: string, kubeConfig: KubeConfig): Promise<KubeRequester> {
  let connection = connections.get(cluster);
  if (connection?.kubeConfig !== kubeConfig) {
    const previous = connection;
    connection = await connect(kubeConfig);
    connections.set(cluster, connection);
    if (previous) void closeDispatcher(previous.dispatcher);
  }
  const { server, headers, dispatcher } = connection;
  return {
    server,
    async get(pathAndQuery, accept, signal) {
      const context = new RequestContext(server + pathAndQuery, "GET");
      for (const [key, value] of Object.entries(headers)) context.setHeaderParam(key, value);
      context.setHeaderParam("Accept", accept);
      context.setHeaderParam("User-Agent", USER_AGENT);
      context.setSignal(signal);
      if (dispatcher) context.setDispatcher(dispatcher);
      const response = await http.send(context).toPromise();
      const body = await response.body.text();
      return { status: response.httpStatusCode, headers: response.headers, body };
    },
  };
}

async function connect(kubeConfig: KubeConfig): Promise<Connection> {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error("the kubeconfig has no current cluster");
  const server = cluster.server.replace(/\/+$/, "");
  // A throwaway context only to collect what the library applies: headers and dispatcher.
  const probe = new RequestContext(`${server}/`, "GET");
  await kubeConfig.applySecurityAuthentication(probe);
  return { kubeConfig, server, headers: { ...probe.getHeaders() }, dispatcher: probe.getDispatcher() };
}

async function closeDispatcher(dispatcher: Dispatcher): Promise<void> {
  try {
    await (dispatcher as { close?: () => Promise<void> } | undefined)?.close?.();
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
