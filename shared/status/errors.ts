import { DomainError } from "../errors.ts";

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
