import { awsRoleName, errorKind, errorKindWithCode, ValidationError } from "../errors.ts";
import type { ReleaseKey } from "../release/model.ts";

export function describeKey(key: ReleaseKey, revision?: number): string {
  return `${key.cluster}/${key.namespace}/${key.name}${revision === undefined ? "" : ` revision ${revision}`}`;
}

/** Helm's own text (`Error: release: not found`); the key is kept for logs and the API. */
export class ReleaseNotFoundError extends errorKind("not-found", "ReleaseNotFound") {
  readonly key: ReleaseKey;
  readonly revision?: number;
  constructor(key: ReleaseKey, revision?: number) {
    super("release: not found");
    this.key = key;
    this.revision = revision;
  }
}

/** A revision already stored with different content, or a write that lost a race. */
export class ReleaseConflictError extends errorKind("conflict", "ReleaseConflict") {
  readonly key: ReleaseKey;
  readonly revision: number;
  constructor(key: ReleaseKey, revision: number, reason: string, options?: { cause?: unknown }) {
    super(`${describeKey(key, revision)}: ${reason}`, options);
    this.key = key;
    this.revision = revision;
  }
}

/** Stored manifest chunks are missing, extra, or fail their size/sha256 check: never returned truncated. */
export class ManifestCorruptError extends errorKind("corrupt", "ManifestCorrupt") {
  constructor(key: ReleaseKey, revision: number, problem: string, options?: { cause?: unknown }) {
    super(`stored manifest of ${describeKey(key, revision)} is corrupt: ${problem}`, options);
  }
}

/** The store's endpoint cannot be reached, the table is missing, or DynamoDB throttled us out. */
export class StoreUnavailableError extends errorKindWithCode("unavailable", "StoreUnavailable") {}

export class StoreTimeoutError extends errorKind("timeout", "StoreTimeout") {}

/**
 * The product's own credentials were refused by DynamoDB (or there are none): the service is misconfigured
 * (502), not the caller forbidden. Callers of the API read `publicMessage`, which names the table and the role.
 */
export class StoreForbiddenError extends errorKind("misconfigured", "StoreForbidden") {
  override readonly publicMessage: string;
  constructor(message: string, options: { table: string; cause?: unknown }) {
    super(message, options);
    const role = awsRoleName((options.cause as { message?: string } | undefined)?.message);
    this.publicMessage =
      `service misconfigured: DynamoDB refused the service's ${role ? `role "${role}"` : "AWS role"} on table ` +
      `"${options.table}"; an operator must fix its IAM permissions`;
  }
}

export class InvalidCursorError extends ValidationError {
  constructor(message = "invalid cursor: pass the cursor of a previous page unchanged") {
    super(message, "InvalidCursor");
  }
}

export class InvalidPageLimitError extends ValidationError {
  constructor(message: string) {
    super(message, "InvalidPageLimit");
  }
}

/** Bad store configuration (environment variables): fail fast at start. */
export class StoreConfigError extends ValidationError {
  constructor(message: string) {
    super(message, "InvalidStoreConfig");
  }
}

/** Errors that mean "our storage is down", not "this release or cluster is broken". */
export function isStoreOutage(error: unknown): boolean {
  return (
    error instanceof StoreUnavailableError || error instanceof StoreTimeoutError || error instanceof StoreForbiddenError
  );
}
