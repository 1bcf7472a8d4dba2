import { errorKind } from "../errors.ts";

/** A stored revision without `info` (Tiller's and Helm's "release info is missing"). */
export class ReleaseInfoMissingError extends errorKind("corrupt", "ReleaseInfoMissing") {
  constructor() {
    super("release info is missing");
  }
}

/** A stored revision without chart metadata (Tiller's "release chart is missing"). */
export class ReleaseChartMissingError extends errorKind("corrupt", "ReleaseChartMissing") {
  constructor() {
    super("release chart is missing");
  }
}
