/** Tiny helpers for values of unknown shape (parsed JSON/YAML, errors), shared by every area of shared/. */

/** A plain JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The first line of an error's message (parsers and SDKs append excerpts and stack-like detail below it). */
export function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error)
    .split("\n")[0]
    .trim();
}
