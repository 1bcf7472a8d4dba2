import type { MiddlewareObj } from "@middy/core";
import type { HttpContext, HttpEvent, HttpResult } from "./types.ts";

/**
 * Headers every answer of every HTTP function carries, errors and static files included (issue #38 item 5):
 * `X-Content-Type-Options: nosniff`, so a browser never runs a JSON or text answer that quotes a caller's input
 * as a script or a page of another type than the one it declares.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = { "x-content-type-options": "nosniff" };

/** `result` with the security headers (a route's own headers kept). */
export function withSecurityHeaders(result: HttpResult): HttpResult {
  return { ...result, headers: { ...result.headers, ...SECURITY_HEADERS } };
}

/** Outermost but for telemetry: its `after` and `onError` run last, on the answer every other middleware made. */
export function securityHeaders(): MiddlewareObj<HttpEvent, HttpResult, Error, HttpContext> {
  const add = (request: { response: HttpResult | null | undefined }) => {
    if (request.response && typeof request.response === "object")
      request.response = withSecurityHeaders(request.response);
  };
  return { after: add, onError: add };
}
