import { errorKind } from "../../../shared/errors.ts";

/**
 * Errors only the HTTP layer raises, shaped like every DomainError so the one error mapping
 * (error-mapping.ts) turns all of them into statuses in one table.
 */

/** No route has this path (any method). `hint` says where the routes are listed. */
export class RouteNotFoundError extends errorKind("not-found", "RouteNotFound") {
  constructor(method: string, path: string, hint?: string) {
    super(`no route for ${method} ${path}${hint ? `; ${hint}` : ""}`);
  }
}

/** The path exists but not for this method (405; `allow` becomes the Allow header). */
export class MethodNotAllowedError extends errorKind("validation", "MethodNotAllowed") {
  readonly allow: string[];
  constructor(method: string, path: string, allow: string[]) {
    super(`${method} is not allowed on ${path}; allowed: ${allow.join(", ")}`);
    this.allow = allow;
  }
}

/** A path or query parameter is malformed; the message names the parameter. */
export class InvalidParameterError extends errorKind("validation", "InvalidParameter") {
  readonly parameter: string;
  constructor(parameter: string, message: string, options?: { cause?: unknown }) {
    super(`${parameter}: ${message}`, options);
    this.parameter = parameter;
  }
}

/** Neither ?output nor Accept names a format this route can produce (406). */
export class NotAcceptableError extends errorKind("validation", "NotAcceptable") {}

/** The request body cannot be read as the route expects (not JSON, bad base64, missing). */
export class InvalidBodyError extends errorKind("validation", "InvalidBody") {}

/** The body's Content-Type is not one the route reads (415). */
export class UnsupportedMediaTypeError extends errorKind("validation", "UnsupportedMediaType") {}

/** A request body over what the route accepts. */
export class RequestTooLargeError extends errorKind("too-large", "RequestTooLarge") {}

/** The response would exceed Lambda's 6 MB payload limit. */
export class ResponseTooLargeError extends errorKind("too-large", "ResponseTooLarge") {
  constructor(bytes: number, limit: number, hint: string) {
    super(`the response would be ${bytes} bytes, over the ${limit}-byte Lambda response limit; ${hint}`);
  }
}

/**
 * A request whose signature does not verify, or a dashboard request without a verified token's claims (401).
 * Every signature failure reads the same "unauthorized": no hint of which check.
 */
export class UnauthorizedError extends errorKind("forbidden", "Unauthorized") {
  constructor(message = "unauthorized") {
    super(message);
  }
}

/** A secret the function needs (a webhook's signing secret) cannot be read now (503: try again shortly). */
export class SecretUnavailableError extends errorKind("unavailable", "SecretUnavailable") {}
