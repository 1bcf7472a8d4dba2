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

/**
 * The preamble both chat webhooks share before any signature check: their own route(s), POST only, a body
 * within MAX_CHAT_BODY_BYTES. A result is the refusal to answer; a Buffer is the exact bytes to verify.
 */
export function webhookBody(event: HttpEvent, paths: readonly string[]): Buffer | HttpResult {
  const method = event.requestContext?.http?.method ?? "POST";
  const path = event.rawPath;
  if (!paths.includes(path)) return errorResult(404, "RouteNotFound", `no route for ${method} ${path}`);
  if (method !== "POST") return { ...errorResult(405, "MethodNotAllowed", "use POST"), headers: { allow: "POST" } };
  const body = rawBody(event);
  if (body.length > MAX_CHAT_BODY_BYTES) return errorResult(413, "PayloadTooLarge", "the request body is too large");
  return body;
}

/**
 * The webhook's secret (Slack signing secret, Teams security token), or a 503 when it cannot be read (SSM
 * unreachable, parameter missing): logged with the reason, never with a value.
 */
export async function webhookSecret(
  read: () => Promise<string>,
  logger: { error(message: string, attributes?: Record<string, unknown>): void },
  what: string,
): Promise<string | HttpResult> {
  try {
    return await read();
  } catch (error) {
    logger.error(`${what} unavailable`, { error: (error as Error).message });
    return errorResult(503, "SecretUnavailable", `the ${what} could not be read; try again shortly`);
  }
}
