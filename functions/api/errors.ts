import { DomainError } from "../../shared/errors.ts";

/**
 * Errors only the API raises (the HTTP layer's own are in functions/_shared/http/errors.ts). Everything else
 * reaches the error mapping as the use cases' own DomainErrors; these follow the same shape so it maps all of
 * them in one table.
 */

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
