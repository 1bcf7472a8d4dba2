import { DomainError } from "../../shared/errors.ts";

/**
 * Errors that only the HTTP layer can raise. Everything else reaches the error
 * middleware as the use cases' own DomainErrors; these follow the same shape so
 * the middleware maps all of them in one table.
 */

/** No route has this path (any method). */
export class RouteNotFoundError extends DomainError {
  readonly kind = "not-found" as const;
  readonly code = "RouteNotFound";
  constructor(method: string, path: string) {
    super(`no route for ${method} ${path}; see GET /openapi.json for the routes`);
  }
}

/**
 * The path exists but not for this method. There is no ErrorKind for 405, so the
 * middleware recognises this code; `allow` becomes the Allow header.
 */
export class MethodNotAllowedError extends DomainError {
  readonly kind = "validation" as const;
  readonly code = "MethodNotAllowed";
  readonly allow: string[];
  constructor(method: string, path: string, allow: string[]) {
    super(`${method} is not allowed on ${path}; allowed: ${allow.join(", ")}`);
    this.allow = allow;
  }
}

/** Neither ?output nor Accept names a format this route can produce (406). */
export class NotAcceptableError extends DomainError {
  readonly kind = "validation" as const;
  readonly code = "NotAcceptable";
}

/** A path or query parameter is malformed; the message names the parameter. */
export class InvalidParameterError extends DomainError {
  readonly kind = "validation" as const;
  readonly code = "InvalidParameter";
  readonly parameter: string;
  constructor(parameter: string, message: string, options?: { cause?: unknown }) {
    super(`${parameter}: ${message}`, options);
    this.parameter = parameter;
  }
}

/** The request body cannot be read as the route expects (not JSON, bad base64, missing). */
export class InvalidBodyError extends DomainError {
  readonly kind = "validation" as const;
  readonly code = "InvalidBody";
}

/** A request body over what the route accepts. */
export class RequestTooLargeError extends DomainError {
  readonly kind = "too-large" as const;
  readonly code = "RequestTooLarge";
}

/** The response would exceed Lambda's 6 MB payload limit. */
export class ResponseTooLargeError extends DomainError {
  readonly kind = "too-large" as const;
  readonly code = "ResponseTooLarge";
  constructor(bytes: number, limit: number, hint: string) {
    super(`the response would be ${bytes} bytes, over the ${limit}-byte Lambda response limit; ${hint}`);
  }
}
