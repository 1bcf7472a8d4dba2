import { DomainError, ValidationError } from "../errors.ts";

/** Helm v4's wording for any bad name given to `helm status` (`releaseContent: ...`). */
export class InvalidStatusReleaseNameError extends ValidationError {
  constructor(name: unknown, options?: { cause?: unknown }) {
    super(`releaseContent: Release name is invalid: ${String(name).slice(0, 100)}`, "InvalidReleaseName", options);
  }
}

/** A stored revision without `info` (Tiller's and Helm's "release info is missing"). */
export class ReleaseInfoMissingError extends DomainError {
  readonly kind = "corrupt" as const;
  readonly code = "ReleaseInfoMissing";
  constructor() {
    super("release info is missing");
  }
}

/** A stored revision without chart metadata (Tiller's "release chart is missing"). */
export class ReleaseChartMissingError extends DomainError {
  readonly kind = "corrupt" as const;
  readonly code = "ReleaseChartMissing";
  constructor() {
    super("release chart is missing");
  }
}
