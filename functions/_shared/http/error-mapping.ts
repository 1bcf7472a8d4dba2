import type { Logger } from "@aws-lambda-powertools/logger";
import type { MiddlewareObj } from "@middy/core";
import { type ErrorKind, isDomainError, publicErrorMessage } from "../../../shared/errors.ts";
import { jsonResult } from "./body.ts";
import type { HttpContext, HttpEvent, HttpResult } from "./types.ts";

/**
 * The one place where failures become HTTP responses, for every HTTP function (the API and the chat
 * webhooks). Routes only throw; this
 * turns a DomainError's `kind` into a status and `{error: {code, message}}`. A
 * 5xx for a bug or damaged data never shows the error's message (it could name
 * tables, hosts or stack frames): the caller gets a request id to quote instead,
 * and the full error goes to the log. The product's own identity being refused
 * (`misconfigured`: its role denied by EKS, STS, DynamoDB or a cluster) is a 502
 * "service misconfigured" with the error's `publicMessage` (cluster and role
 * name, never AWS's text with the function's principal ARN), not a 403: a 403 is
 * only ever about the caller.
 */

const STATUS_BY_KIND: Record<ErrorKind, number> = {
  validation: 400,
  "not-found": 404,
  conflict: 409,
  forbidden: 403,
  "too-large": 413,
  misconfigured: 502,
  unavailable: 502,
  timeout: 504,
  corrupt: 500,
  internal: 500,
};

/** HTTP statuses no ErrorKind expresses. */
const STATUS_BY_CODE: Record<string, number> = {
  Unauthorized: 401,
  MethodNotAllowed: 405,
  NotAcceptable: 406,
  UnsupportedMediaType: 415,
  SecretUnavailable: 503,
};

export interface HttpErrorBody {
  error: { code: string; message: string; requestId?: string };
}

export function errorResponse(status: number, body: HttpErrorBody, headers: Record<string, string> = {}): HttpResult {
  return jsonResult(status, body, headers);
}

export function toHttpError(error: unknown, requestId: string | undefined): HttpResult {
  if (isDomainError(error)) {
    const status = STATUS_BY_CODE[error.code] ?? STATUS_BY_KIND[error.kind] ?? 500;
    const headers: Record<string, string> = {};
    const allow = (error as { allow?: unknown }).allow;
    if (Array.isArray(allow)) headers.allow = allow.join(", ");
    // The one public-message rule (shared/errors.ts), the same chat answers use.
    return errorResponse(
      status,
      { error: { code: error.code, message: publicErrorMessage(error), requestId } },
      headers,
    );
  }
  if (isInvocationTimeout(error)) {
    return errorResponse(504, {
      error: { code: "Timeout", message: "the request ran out of time; try again, or ask for less", requestId },
    });
  }
  return errorResponse(500, {
    error: { code: "InternalError", message: "internal error; quote the request id to an operator", requestId },
  });
}

/** middy's own answer when the Lambda's time is up and the route is still running (its `timeoutEarly`). */
function isInvocationTimeout(error: unknown): boolean {
  return (
    error instanceof Error &&
    error.name === "TimeoutError" &&
    (error.cause as { package?: unknown } | undefined)?.package === "@middy/core"
  );
}

/** What the log keeps of an error: enough to debug, without request bodies or credentials. */
function loggable(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { error: String(error) };
  const cause = error.cause instanceof Error ? { name: error.cause.name, message: error.cause.message } : undefined;
  return {
    error: {
      name: error.name,
      code: (error as { code?: unknown }).code,
      kind: (error as { kind?: unknown }).kind,
      message: error.message,
      stack: error.stack,
      cause,
    },
  };
}

export function domainErrorsToHttp(logger: Logger): MiddlewareObj<HttpEvent, HttpResult, Error, HttpContext> {
  return {
    onError: async (request) => {
      if (request.response !== undefined) return;
      const requestId = request.event.requestContext?.requestId ?? request.context.awsRequestId;
      const response = toHttpError(request.error, requestId);
      if (response.statusCode && response.statusCode >= 500) {
        logger.error("request failed", loggable(request.error));
      } else {
        const error = request.error as { code?: string; message?: string } | null;
        logger.info("request refused", { errorCode: error?.code, reason: error?.message });
      }
      request.response = response;
    },
  };
}
