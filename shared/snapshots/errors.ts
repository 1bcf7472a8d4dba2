import { errorKind, ValidationError } from "../errors.ts";
import { quoteInput } from "../release/errors.ts";

export class InvalidSnapshotIdError extends ValidationError {
  constructor(id: unknown) {
    super(
      `invalid snapshot id ${quoteInput(id)}: expected <cluster>.<namespace>.<release>@<runId>, as listed by \`snapshots\``,
      "InvalidSnapshotId",
    );
  }
}

export class SnapshotNotFoundError extends errorKind("not-found", "SnapshotNotFound") {
  constructor(id: string) {
    super(`snapshot ${id} not found (never taken, or expired)`);
  }
}

export class AuditRunNotFoundError extends errorKind("not-found", "AuditRunNotFound") {
  constructor(runId: string) {
    super(`audit run ${runId} not found`);
  }
}

/** A stored snapshot that cannot be read back: named, so it can be found and removed. */
export class SnapshotCorruptError extends errorKind("corrupt", "SnapshotCorrupt") {
  constructor(id: string, detail: string, options?: { cause?: unknown }) {
    super(`stored snapshot ${id} is corrupt: ${detail}`, options);
  }
}

export class HistoryConfigError extends ValidationError {
  constructor(message: string) {
    super(message, "InvalidHistoryConfig");
  }
}

export class InvalidHistoryQueryError extends ValidationError {
  constructor(message: string) {
    super(message, "InvalidHistoryQuery");
  }
}

/** Concurrent writers of one release kept winning: the message is retried later. */
export class SnapshotWriteConflictError extends errorKind("conflict", "SnapshotWriteConflict") {
  constructor(id: string, attempts: number) {
    super(`snapshot ${id} kept losing write races (${attempts} attempts)`);
  }
}

/** The history has no snapshot covering a time (before the first audit, a gap, past retention, none yet). */
export class NoSnapshotCoverageError extends errorKind("not-found", "NoSnapshotCoverage") {}
