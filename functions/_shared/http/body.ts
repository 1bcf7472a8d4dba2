import { InvalidBodyError, RequestTooLargeError } from "./errors.ts";
import type { HttpEvent, HttpResult } from "./types.ts";

/**
 * The body as the caller sent it, within `maxBytes`: the text API Gateway passed, or the bytes it base64-encoded.
 * Nothing on the HTTP stack parses or rewrites a body, so a webhook verifies its signature over these bytes.
 */
export function requestBody(event: HttpEvent, maxBytes: number, tooLargeHint = "send less"): string | Buffer {
  if (event.body === undefined || event.body === null) return "";
  let body: string | Buffer = event.body;
  if (event.isBase64Encoded) {
    if (!/^[A-Za-z0-9+/\r\n]*={0,2}\s*$/.test(event.body)) {
      throw new InvalidBodyError("the request body is marked base64-encoded but is not valid base64");
    }
    body = Buffer.from(event.body, "base64");
  }
  const bytes = typeof body === "string" ? Buffer.byteLength(body) : body.length;
  if (bytes > maxBytes) {
    throw new RequestTooLargeError(
      `the request body is ${bytes} bytes, over the ${maxBytes}-byte limit; ${tooLargeHint}`,
    );
  }
  return body;
}

/** The exact bytes of the body (what a signature is computed over). */
export function rawBody(event: HttpEvent, maxBytes: number, tooLargeHint?: string): Buffer {
  const body = requestBody(event, maxBytes, tooLargeHint);
  return typeof body === "string" ? Buffer.from(body, "utf8") : body;
}

/** A JSON answer nobody may cache (the API's documents go through respond.ts, with content negotiation). */
export function jsonResult(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResult {
  return {
    statusCode,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
    body: JSON.stringify(body),
  };
}

export function emptyResult(statusCode = 200): HttpResult {
  return { statusCode, headers: { "cache-control": "no-store" }, body: "" };
}
