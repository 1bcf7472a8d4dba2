import { errorKind, ValidationError } from "../errors.ts";

/** Quotes a user-supplied value for an error message without letting a huge or binary value flood the output. */
export function quoteInput(value: unknown): string {
  const text = typeof value === "string" ? value : String(value);
  const shown = text.length > 80 ? `${text.slice(0, 77)}...` : text;
  return JSON.stringify(shown);
}

export class InvalidReleaseNameError extends ValidationError {
  constructor(message: string) {
    super(message, "InvalidReleaseName");
  }
}

export class InvalidNamespaceError extends ValidationError {
  constructor(message: string) {
    super(message, "InvalidNamespace");
  }
}

export class InvalidRevisionError extends ValidationError {
  constructor(message: string) {
    super(message, "InvalidRevision");
  }
}

export class InvalidClusterNameError extends ValidationError {
  constructor(message: string) {
    super(message, "InvalidClusterName");
  }
}

export class InvalidReleaseStatusError extends ValidationError {
  constructor(message: string) {
    super(message, "InvalidReleaseStatus");
  }
}

/**
 * A Helm storage object (Secret/ConfigMap) whose payload cannot be decoded:
 * bad base64, bad gzip, bad JSON, or a release JSON missing required fields.
 * It is the caller's input that is broken, hence a validation error.
 */
export class HelmPayloadError extends ValidationError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, "InvalidHelmPayload", options);
  }
}

/** A release too big for the store even after compression and chunking limits (e.g. huge values). */
export class ReleaseTooLargeError extends errorKind("too-large", "ReleaseTooLarge") {}
