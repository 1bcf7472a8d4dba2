import { readFileSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";
import { RouteNotFoundError } from "../_shared/http/errors.ts";
import type { ApiResult } from "./types.ts";

/**
 * The dashboard's static files, served by the API function itself (docs/dashboard.md says why): the built
 * client in `dir` (index.html and content-hashed assets). A hashed name never changes content, so it is
 * cached for a year (immutable); index.html is revalidated each time, so a deploy is seen at the next load.
 * Files are read once per warm process. A path outside `dir` or not in it is a 404.
 */
const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
};
const TEXT = /^(text\/|application\/json|image\/svg)/;
/** A file name esbuild gave a content hash: `app-3F2KX7QZ.js`. */
const HASHED = /-[A-Z0-9]{8}\.[a-z]+$/;

export class StaticFiles {
  readonly #dir: string;
  readonly #cache = new Map<string, Buffer>();
  readonly #securityHeaders: Record<string, string>;

  constructor(dir: string, connectOrigins: readonly string[]) {
    this.#dir = normalize(dir);
    this.#securityHeaders = {
      // The page talks to this origin and to the identity provider (discovery, token endpoint), nothing else.
      "content-security-policy": [
        "default-src 'self'",
        `connect-src 'self' ${connectOrigins.join(" ")}`.trim(),
        "img-src 'self' data:",
        "style-src 'self'",
        "script-src 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
        "form-action 'self'",
      ].join("; "),
      "x-content-type-options": "nosniff",
      // The sign-in's authorization code is in the URL after the redirect: never send it elsewhere.
      "referrer-policy": "no-referrer",
    };
  }

  /** `relative` is the path under /dashboard/ ("" or "index.html" is the page). */
  serve(relative: string): ApiResult {
    const name = relative === "" ? "index.html" : relative;
    const path = normalize(join(this.#dir, name));
    if (!path.startsWith(this.#dir + sep) || name.includes("\0"))
      throw new RouteNotFoundError("GET", `/dashboard/${relative}`);
    const body = this.#read(path, relative);
    const type = TYPES[extname(path)] ?? "application/octet-stream";
    const headers: Record<string, string> = {
      "content-type": type,
      "cache-control": HASHED.test(name) ? "public, max-age=31536000, immutable" : "no-cache",
      ...this.#securityHeaders,
    };
    return TEXT.test(type)
      ? { statusCode: 200, headers, body: body.toString("utf8") }
      : { statusCode: 200, headers, body: body.toString("base64"), isBase64Encoded: true };
  }

  #read(path: string, relative: string): Buffer {
    const cached = this.#cache.get(path);
    if (cached) return cached;
    let body: Buffer;
    try {
      body = readFileSync(path);
    } catch {
      throw new RouteNotFoundError("GET", `/dashboard/${relative}`);
    }
    this.#cache.set(path, body);
    return body;
  }
}
