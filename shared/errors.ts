/**
 * The one base class for every domain error in the product.
 *
 * Each area keeps its own `errors.ts` with subclasses whose names end in `Error`
 * (Powertools style). An error says *what kind* of failure it is (`kind`), so the
 * HTTP middleware and the CLI can map it in one place without knowing every class.
 * The original error, when there is one, is kept as `cause`.
 */
export type ErrorKind =
  | "validation" // the caller sent something malformed (HTTP 400)
  | "not-found" // unknown release, revision, cluster (HTTP 404)
  | "conflict" // a write lost a race or would overwrite different content (HTTP 409)
  | "forbidden" // the product itself was denied (HTTP 403)
  | "too-large" // a response or payload over a hard limit (HTTP 413)
  | "unavailable" // a dependency (DynamoDB, EKS, STS) could not be reached (HTTP 502)
  | "timeout" // a dependency did not answer in time (HTTP 504)
  | "corrupt" // stored data is damaged (HTTP 500 with a safe message)
  | "internal"; // a bug (HTTP 500, message never shown)

export abstract class DomainError extends Error {
  abstract readonly kind: ErrorKind;
  /** A stable, machine-readable code such as `ReleaseNotFound`. */
  abstract readonly code: string;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}

/** A plain validation failure shared by every area (bad name, bad flag, bad query). */
export class ValidationError extends DomainError {
  readonly kind = "validation" as const;
  readonly code: string;
  constructor(message: string, code = "ValidationFailed", options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
