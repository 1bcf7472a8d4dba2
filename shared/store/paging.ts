/** Page sizes and opaque cursors shared by both stores. */
import type { ReleaseStatus } from "../release/model.ts";
import { validateClusterName, validateNamespace, validateStatus } from "../release/validation.ts";
import { InvalidCursorError, InvalidPageLimitError } from "./errors.ts";
import type { RevisionFilter } from "./release-store.ts";

export const DEFAULT_PAGE_LIMIT = 100;
export const MAX_PAGE_LIMIT = 1000;
const MAX_CURSOR_LENGTH = 4096;

/**
 * Every item of a paged listing, following its cursors for at most `maxPages` pages (a bound on the walk:
 * 100 pages of 1,000 is past any fleet this reads).
 */
export async function readAllPages<T>(
  page: (cursor?: string) => Promise<{ items: T[]; cursor?: string }>,
  maxPages = 100,
): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  for (let round = 0; round < maxPages; round++) {
    const result = await page(cursor);
    all.push(...result.items);
    cursor = result.cursor;
    if (!cursor) break;
  }
  return all;
}

export function resolveLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_PAGE_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new InvalidPageLimitError(`invalid page limit ${String(limit)}: must be a positive integer`);
  }
  return Math.min(limit, MAX_PAGE_LIMIT);
}

/**
 * Cursors are base64url JSON tagged with the listing they belong to, so a history
 * cursor handed to a listing (or a hand-edited one) is a clear 400, not a strange page.
 */
export function encodeCursor(kind: string, position: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify({ k: kind, p: position }), "utf8").toString("base64url");
}

export function decodeCursor(kind: string, cursor: string): Record<string, string | number> {
  if (typeof cursor !== "string" || cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH) {
    throw new InvalidCursorError();
  }
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new InvalidCursorError();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw new InvalidCursorError();
  }
  const p = (parsed as { p?: unknown })?.p;
  if ((parsed as { k?: unknown })?.k !== kind || !p || typeof p !== "object" || Array.isArray(p)) {
    throw new InvalidCursorError();
  }
  for (const value of Object.values(p)) {
    if (typeof value !== "string" && typeof value !== "number") throw new InvalidCursorError();
  }
  return p as Record<string, string | number>;
}

/** A history cursor position: a revision number, or the cursor was tampered with. */
export function cursorRevision(value: string | number | undefined): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > 2_147_483_647) {
    throw new InvalidCursorError();
  }
  return value;
}

/**
 * A listing cursor position: "<cluster>#<namespace>#<name>", inside the listing's
 * scope (see listingScope). A cursor of another cluster's or namespace's listing
 * would otherwise be a start key DynamoDB rejects (a 500) or a silently odd page.
 */
export function cursorPosition(value: string | number | undefined, scope = ""): string {
  if (typeof value !== "string" || !/^[^#]+#[^#]+#[^#]+$/.test(value) || !value.startsWith(scope)) {
    throw new InvalidCursorError();
  }
  return value;
}

/** The listing-position prefix a listing filtered by cluster (and namespace) covers; "" for all. */
export function listingScope(filter: { cluster?: string; namespace?: string }): string {
  if (filter.cluster === undefined) return "";
  return filter.namespace === undefined ? `${filter.cluster}#` : `${filter.cluster}#${filter.namespace}#`;
}

/**
 * The statuses a listing keeps: `status` and `statuses` both hold when both are given;
 * undefined = any status; an empty list = none.
 */
export function wantedStatuses(filter: {
  status?: ReleaseStatus;
  statuses?: readonly ReleaseStatus[];
}): ReleaseStatus[] | undefined {
  const status = filter.status === undefined ? undefined : validateStatus(filter.status);
  if (filter.statuses === undefined) return status === undefined ? undefined : [status];
  if (!Array.isArray(filter.statuses)) throw new InvalidCursorError("statuses must be a list of release statuses");
  const set = [...new Set(filter.statuses.map((s) => validateStatus(s)))].sort();
  return status === undefined ? set : set.filter((s) => s === status);
}

/** The listing positions a revision listing covers: one cluster, maybe one namespace. */
export function revisionScope(filter: RevisionFilter): string {
  const cluster = validateClusterName(filter?.cluster);
  if (filter.namespace === undefined) return listingScope({ cluster });
  return listingScope({ cluster, namespace: validateNamespace(filter.namespace) });
}
