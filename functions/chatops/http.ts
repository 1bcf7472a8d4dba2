/** API Gateway HTTP API (payload 2.0) plumbing shared by the chat webhooks. */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";

export type HttpEvent = APIGatewayProxyEventV2;
export type HttpResult = APIGatewayProxyStructuredResultV2;

/** Chat platforms send small bodies; anything bigger is refused before any work. */
export const MAX_CHAT_BODY_BYTES = 64 * 1024;

/** The exact bytes the platform sent (API Gateway base64-encodes some bodies). */
export function rawBody(event: HttpEvent): Buffer {
  if (event.body === undefined || event.body === null) return Buffer.alloc(0);
  return event.isBase64Encoded ? Buffer.from(event.body, "base64") : Buffer.from(event.body, "utf8");
}

/** A header, case-insensitively (API Gateway lower-cases them; tests and proxies may not). */
export function header(event: HttpEvent, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === wanted) return value;
  }
  return undefined;
}

export function json(statusCode: number, body: unknown): HttpResult {
  return {
    statusCode,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
    body: JSON.stringify(body),
  };
}

export function empty(statusCode = 200): HttpResult {
  return { statusCode, headers: { "cache-control": "no-store" }, body: "" };
}

/** Every signature failure looks the same: no hint of which check failed. */
export const UNAUTHORIZED: HttpResult = json(401, { error: { code: "Unauthorized", message: "unauthorized" } });

export function errorResult(statusCode: number, code: string, message: string): HttpResult {
  return json(statusCode, { error: { code, message } });
}
