/**
 * Snapshots as stored: the status text gzip-compressed within an item budget
 * (a longer text is cut with a marker, never failing the snapshot), and a shape
 * check on read so a damaged item is a clear error naming it, not a crash later.
 */
import { gunzipSync, gzipSync } from "node:zlib";
import { isHealthStatus } from "../health/index.ts";
import { InvalidCursorError } from "../store/errors.ts";
import { decodeCursor, encodeCursor } from "../store/paging.ts";
import { SnapshotCorruptError } from "./errors.ts";
import type { Snapshot } from "./model.ts";

/** DynamoDB items are at most 400 KB; the rest of a snapshot is small. */
export const TEXT_BUDGET_BYTES = 300 * 1024;
export const TRUNCATION_MARKER = "\n... [status text truncated to fit the snapshot; the live status has all of it]\n";

export function packText(text: string, budget = TEXT_BUDGET_BYTES): { gzip: Buffer; truncated: boolean } {
  let gzip = gzipSync(text);
  if (gzip.length <= budget) return { gzip, truncated: false };
  // Cut proportionally, then halve until it fits: bounded (at most ~20 rounds for any text).
  let keep = Math.floor(text.length * (budget / gzip.length) * 0.9);
  for (let round = 0; round < 40; round++) {
    gzip = gzipSync(text.slice(0, keep) + TRUNCATION_MARKER);
    if (gzip.length <= budget) return { gzip, truncated: true };
    keep = Math.floor(keep / 2);
  }
  return { gzip: gzipSync(TRUNCATION_MARKER), truncated: true };
}

export function unpackText(id: string, gzip: unknown): string {
  if (!(gzip instanceof Uint8Array)) throw new SnapshotCorruptError(id, "its status text is not binary");
  try {
    return gunzipSync(gzip).toString("utf8");
  } catch (error) {
    throw new SnapshotCorruptError(id, "its status text does not decompress", { cause: error });
  }
}

const isString = (v: unknown) => typeof v === "string";
const isCount = (v: unknown) => typeof v === "number" && Number.isInteger(v) && v >= 0;

/** The stored document's shape, checked field by field (the first problem is named). */
export function checkSnapshot(id: string, raw: unknown): Snapshot {
  const s = raw as Record<string, unknown> | null;
  const problem = (() => {
    if (!s || typeof s !== "object") return "it is not an object";
    if (!s.release || typeof s.release !== "object") return "release is missing";
    for (const field of ["runId", "lastRunId", "firstSeenAt", "lastSeenAt", "digest", "releaseStatus"]) {
      if (!isString(s[field])) return `${field} is not a string`;
    }
    if (!isCount(s.seenCount) || !isCount(s.revision) || !isCount(s.expiresAt)) return "a counter is not a number";
    const health = s.health as Record<string, unknown> | undefined;
    if (!health || typeof health !== "object" || !isHealthStatus(health.overall) || !isString(health.message)) {
      return "health is not {overall, message}";
    }
    if (!Array.isArray(s.resources) || !Array.isArray(s.missing) || !Array.isArray(s.changes)) {
      return "resources, missing or changes is not a list";
    }
    return undefined;
  })();
  if (problem) throw new SnapshotCorruptError(id, problem);
  return raw as Snapshot;
}

/** A listing cursor, tied to the listing (kind) and its scope (release, filter). */
export function encodeScopedCursor(kind: string, scope: string, position: string): string {
  return encodeCursor(kind, { s: scope, p: position });
}

export function decodeScopedCursor(kind: string, scope: string, cursor: string): string {
  const decoded = decodeCursor(kind, cursor);
  if (decoded.s !== scope || typeof decoded.p !== "string") throw new InvalidCursorError();
  return decoded.p;
}
