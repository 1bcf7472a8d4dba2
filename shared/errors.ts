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
  | "forbidden" // the caller itself is not allowed (HTTP 403; e.g. the chatops access map)
  | "too-large" // a response or payload over a hard limit (HTTP 413)
  | "misconfigured" // the product's own identity or setup was refused by EKS, STS, DynamoDB, a cluster (HTTP 502)
  | "unavailable" // a dependency (DynamoDB, EKS, STS) could not be reached (HTTP 502)
  | "timeout" // a dependency did not answer in time (HTTP 504)
  | "corrupt" // stored data is damaged (HTTP 500 with a safe message)
  | "internal"; // a bug (HTTP 500, message never shown)

export abstract class DomainError extends Error {
  abstract readonly kind: ErrorKind;
  /** A stable, machine-readable code such as `ReleaseNotFound`. */
  abstract readonly code: string;
  /**
   * What a remote caller may read when `message` holds the service's own internals (AWS's text naming the
   * function's principal ARN, account ids). Adapters that answer other people (the API, chatops) show this;
   * the CLI, run with the user's own credentials, shows `message`. Logs always keep `message`.
   */
  readonly publicMessage?: string;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}

/**
 * The base of an error of one kind and code, so a class says only what is its own (fields, a message built from
 * them): `export class ReleaseTimeoutError extends errorKind("timeout", "ReleaseTimeout") {}`.
 */
export function errorKind<const K extends ErrorKind, const C extends string>(kind: K, code: C) {
  return class extends DomainError {
    readonly kind: K = kind;
    readonly code: C = code;
  };
}

/** The base of an error of one kind whose code the thrower may choose (`new ValidationError(message, "BadFlag")`). */
export function errorKindWithCode<const K extends ErrorKind>(kind: K, defaultCode: string) {
  return class extends DomainError {
    readonly kind: K = kind;
    readonly code: string;
    constructor(message: string, code = defaultCode, options?: { cause?: unknown }) {
      super(message, options);
      this.code = code;
    }
  };
}

/** A plain validation failure shared by every area (bad name, bad flag, bad query). */
export class ValidationError extends errorKindWithCode("validation", "ValidationFailed") {}

/**
 * What a remote caller (the API, chat answers, `--public` channel answers) may read of an error: the one rule,
 * shared by every adapter that answers other people (#25 item 3). A bug or damaged data says only that; an
 * error that knows the service's internals says its `publicMessage`; the product's own identity refused says
 * "service misconfigured"; anything else its message. Logs keep the full `message`.
 */
export function publicErrorMessage(error: unknown): string {
  if (!isDomainError(error) || error.kind === "internal") return "internal error; quote the request id to an operator";
  if (error.kind === "corrupt") return "stored release data is damaged; quote the request id to an operator";
  if (error.publicMessage) return error.publicMessage;
  if (error.kind === "misconfigured") {
    return "service misconfigured: a dependency refused the service's own credentials; quote the request id to an operator";
  }
  return error.message;
}

/**
 * AWS's and the network's text without what only the operator may read: ARNs, account ids, AWS endpoint host
 * names and URLs (an EKS API server's `https://<id>.gr7.<region>.eks.amazonaws.com`, a private endpoint).
 */
export function withoutAwsDetails(text: string): string {
  return text
    .replace(/\barn:aws[\w-]*:[^\s"',)]*/g, "<arn>")
    .replace(/\bhttps?:\/\/[^\s"',)]+/g, "<endpoint>")
    .replace(/\b[\w-]+(?:\.[\w-]+)*\.amazonaws\.com(?:\.cn)?\b/g, "<endpoint>")
    .replace(/\b\d{12}\b/g, "<account>");
}

/**
 * The name of an IAM role: of a role ARN, or of the refused principal an AWS error message names
 * (`User: arn:aws:sts::123456789012:assumed-role/NAME/session is not authorized ...`). Enough for an operator
 * to know which role to fix, without echoing account ids or session names to callers.
 */
export function awsRoleName(arnOrMessage: string | undefined): string | undefined {
  if (!arnOrMessage) return undefined;
  const assumed = /:assumed-role\/([\w+=,.@-]+)\//.exec(arnOrMessage)?.[1];
  if (assumed) return assumed;
  return /^arn:aws[\w-]*:iam::\d*:role\/(?:[\w+=,.@-]+\/)*([\w+=,.@-]+)$/.exec(arnOrMessage.trim())?.[1];
}

/**
 * The caller is not allowed to do this (HTTP 403): e.g. a chat user outside the chatops access map. Never for
 * the product's own identity being refused, which is a ServiceMisconfigured 502 (kind `misconfigured`).
 */
export class CallerForbiddenError extends errorKindWithCode("forbidden", "Forbidden") {}
