import { errorKind, ValidationError } from "../errors.ts";

/** A queue setting is missing or malformed (named by its variable). */
export class QueueConfigError extends ValidationError {
  constructor(message: string) {
    super(message, "InvalidQueueConfig");
  }
}

export interface FailedEntry {
  id: string;
  code: string;
  message: string;
}

/** SQS refused some messages, or kept failing them after the retries. */
export class QueueSendError extends errorKind("unavailable", "QueueSendFailed") {
  readonly failed: FailedEntry[];
  constructor(message: string, failed: FailedEntry[], options?: { cause?: unknown }) {
    super(message, options);
    this.failed = failed;
  }
}
