/**
 * What `npm start` refuses before any function sees the request (issue #38 item 5). The local server has no
 * authorizer in front of it and may hold the developer's AWS keys, so a web page the developer visits must not
 * be able to use it: a page reaches 127.0.0.1 through DNS rebinding (its own name resolving to 127.0.0.1, the
 * `Host` header still its own) or by a cross-site form or fetch (a write the browser sends without asking).
 *
 * - a `Host` that is not this machine (127.0.0.1, localhost or [::1], any port: a tunnel may forward another) is
 *   a 421, whatever the method;
 * - a write (anything but GET, HEAD, OPTIONS) that a browser marks as coming from another site (`Sec-Fetch-Site`
 *   cross-site or same-site, or an `Origin` other than this server's own) is a 403. curl, the CLI and the chat
 *   signer send neither header.
 *
 * The import's Content-Type rule (JSON or YAML only, a 415) is the route's own (functions/api/routes/import.ts),
 * the same in AWS.
 */
import type { IncomingHttpHeaders } from "node:http";

export interface Refusal {
  status: number;
  code: string;
  message: string;
}

const LOOPBACK_NAMES = new Set(["127.0.0.1", "localhost", "[::1]"]);
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The refusal of a request `npm start` must not serve, or undefined to serve it. `port`: the server's own. */
export function refuseForeignRequest(
  request: { method?: string; headers: IncomingHttpHeaders },
  port: number,
): Refusal | undefined {
  const host = request.headers.host;
  if (host !== undefined && !isLoopbackHost(host)) {
    return {
      status: 421,
      code: "MisdirectedRequest",
      message: `Host ${shown(host)} is not this machine: npm start answers only requests to 127.0.0.1, localhost or [::1] (a page that resolves its own name to 127.0.0.1 must not reach it)`,
    };
  }
  if (SAFE_METHODS.has((request.method ?? "GET").toUpperCase())) return undefined;
  const site = headerValue(request.headers["sec-fetch-site"])?.toLowerCase();
  if (site === "cross-site" || site === "same-site") {
    return crossSite(`the browser marks this ${request.method} as sent by another site (Sec-Fetch-Site: ${site})`);
  }
  const origin = headerValue(request.headers.origin);
  if (origin !== undefined && !isOwnOrigin(origin, port)) {
    return crossSite(`the request's Origin ${shown(origin)} is not this server's (http://127.0.0.1:${port})`);
  }
  return undefined;
}

function crossSite(why: string): Refusal {
  return {
    status: 403,
    code: "CrossSiteRequest",
    message: `${why}: npm start takes writes (import, sync, chat) only from this machine's tools (curl, the CLI), never from a web page`,
  };
}

/** `name` or `name:port` with a loopback name. */
function isLoopbackHost(host: string): boolean {
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d{1,5}))?$/.exec(host.trim().toLowerCase());
  return match !== null && LOOPBACK_NAMES.has(match[1]);
}

/** This server's own origin: http, a loopback name, its port. */
function isOwnOrigin(origin: string, port: number): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // "null" (a sandboxed frame, a file) and anything unreadable
  }
  return url.protocol === "http:" && LOOPBACK_NAMES.has(url.hostname) && Number(url.port || 80) === port;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(",") : value;
}

function shown(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}...` : value);
}
