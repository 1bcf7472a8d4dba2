import type { Agent as HttpAgent, IncomingMessage } from "node:http";
import type { Dispatcher } from "undici";

/** The two ways a pool sends a GET (http.ts picks one per cluster); both collect the body whole. */

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

const USER_AGENT = "helm-status-lambda";

/**
 * node:http through process.getBuiltinModule, not an ESM import: importing it builds the module's ESM facade,
 * which reads every export, and its lazy `WebSocket`/`CloseEvent`/`MessageEvent` getters load Node's internal
 * undici: ≈ 8 ms of CPU in a cold import (docs/bench.md), while only plain http:// servers (kubectl proxy, local
 * tests) use node:http here at all.
 */
export function nodeHttp(): typeof import("node:http") {
  return process.getBuiltinModule("node:http");
}

/** Plain `http://` servers (kubectl proxy, local test servers): Node's keep-alive Agent, no TLS involved. */
export function agentRequester(server: string, headers: Record<string, string>, agent: HttpAgent): KubeRequester {
  const url = new URL(server);
  const prefix = url.pathname.replace(/\/+$/, "");
  return {
    server,
    get: (pathAndQuery, accept, signal) =>
      new Promise<KubeResponse>((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason);
        const req = nodeHttp().request({
          agent,
          protocol: url.protocol,
          hostname: url.hostname.replace(/^\[|\]$/g, ""),
          port: url.port || undefined,
          method: "GET",
          path: prefix + pathAndQuery,
          headers: { ...headers, accept, "user-agent": USER_AGENT },
          signal,
        });
        req.on("response", (response: IncomingMessage) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: flatHeaders(response.headers),
              body: Buffer.concat(chunks).toString("utf8"),
            }),
          );
          response.on("error", (error) =>
            reject(signal.aborted ? signal.reason : failure(server, pathAndQuery, error)),
          );
          response.on("aborted", () =>
            reject(signal.aborted ? signal.reason : failure(server, pathAndQuery, new Error("response aborted"))),
          );
        });
        // The session tells a timeout from a deadline by the signal's reason.
        req.on("error", (error) => reject(signal.aborted ? signal.reason : failure(server, pathAndQuery, error)));
        req.end();
      }),
  };
}

/**
 * GETs through an undici dispatcher's core `dispatch()` with a handler that collects the body's chunks: no
 * Readable stream per answer (the `request()` API builds one, and lives in the rest of undici, which is not
 * loaded: see undici-agent.d.ts), no fetch Request/Headers/web streams.
 *
 * The signal aborts the exchange at every stage: once it started (headers or body awaited) through its
 * controller; before, while it waits in the pool's queue or for a connection that is still being made (DNS,
 * TCP connect, a TLS handshake that never completes), through the cancel function undici hands over under
 * `queuedAbort` — without it such a request could not be aborted at all and an HTTP/2 status never settled
 * (issue #25 item 1).
 */
export function dispatcherRequester(
  server: string,
  headers: Record<string, string>,
  dispatcher: Dispatcher,
  queuedAbort: symbol,
): KubeRequester {
  const origin = new URL(server).origin;
  // The server URL may carry a path prefix (a proxy in front of the API server).
  const prefix = server.slice(origin.length);
  return {
    server,
    get(pathAndQuery, accept, signal) {
      return new Promise<KubeResponse>((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason);
        let controller: Dispatcher.DispatchController | undefined;
        let cancelQueued: ((reason: unknown) => void) | undefined;
        let status = 0;
        let responseHeaders: Record<string, string> = {};
        const chunks: Buffer[] = [];
        const onAbort = () => {
          if (controller) controller.abort(signal.reason);
          else cancelQueued?.(signal.reason);
        };
        signal.addEventListener("abort", onAbort, { once: true });
        const settle = (error?: unknown) => {
          signal.removeEventListener("abort", onAbort);
          if (error === undefined) {
            resolve({ status, headers: responseHeaders, body: Buffer.concat(chunks).toString("utf8") });
          } else {
            // The session tells a timeout from a deadline by the signal's reason.
            reject(signal.aborted ? signal.reason : failure(server, pathAndQuery, error));
          }
        };
        dispatcher.dispatch(
          {
            origin,
            path: prefix + pathAndQuery,
            method: "GET",
            headers: { ...headers, accept, "user-agent": USER_AGENT },
            // Called (by the pool, then by a client still connecting) with the way out of its queue.
            [queuedAbort]: (cancel: (reason: unknown) => void) => {
              if (signal.aborted) cancel(signal.reason);
              else cancelQueued = cancel;
            },
          } as Dispatcher.DispatchOptions,
          {
            onRequestStart(started) {
              controller = started;
              if (signal.aborted) started.abort(signal.reason);
            },
            onResponseStart(_controller, statusCode, received) {
              status = statusCode;
              responseHeaders = flatHeaders(received);
            },
            onResponseData(_controller, chunk) {
              chunks.push(chunk);
            },
            onResponseEnd() {
              settle();
            },
            onResponseError(_controller, error) {
              settle(error);
            },
          },
        );
      });
    },
  };
}

function failure(server: string, pathAndQuery: string, cause: unknown): Error {
  return new Error(`GET ${server}${pathAndQuery} failed`, { cause });
}

function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const key in headers) {
    const value = headers[key];
    if (value !== undefined) flat[key] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}
