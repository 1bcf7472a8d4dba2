/** How a revision maps to DynamoDB items (layout in table-schema.ts). */
import type {
  ChartMetadata,
  Release,
  ReleaseKey,
  ReleaseMetadata,
  ReleaseStatus,
  ReleaseSummary,
} from "../release/model.ts";
import type { Item } from "./dynamodb-table.ts";
import { ManifestCorruptError } from "./errors.ts";
import { type ManifestRecord, revisionSortKey, unpackBody } from "./manifest-chunks.ts";
import {
  assembleMetadata,
  assembleRelease,
  type MutableFields,
  type RevisionParts,
  withStoredSource,
} from "./revision-content.ts";
import { DEPLOYED_INDEX, RELEASES_INDEX } from "./table-schema.ts";

export const LATEST_SORT_KEY = "LATEST";

export function releasePartitionKey(key: ReleaseKey): string {
  return `REL#${key.cluster}#${key.namespace}#${key.name}`;
}

/** The order of `helm list` across clusters: cluster, then namespace, then name. */
export function listingPosition(key: ReleaseKey): string {
  return `${key.cluster}#${key.namespace}#${key.name}`;
}

export function revisionItem(key: ReleaseKey, parts: RevisionParts, record: ManifestRecord, storedAt: string): Item {
  const item: Item = {
    PK: releasePartitionKey(key),
    SK: revisionSortKey(parts.fixed.version),
    cluster: key.cluster,
    namespace: key.namespace,
    name: key.name,
    revision: parts.fixed.version,
    ...mutableAttributes(parts.mutable),
    meta: JSON.stringify(parts.fixed),
    contentHash: parts.contentHash,
    manifest: record,
    storedAt,
  };
  if (parts.fixed.info?.last_deployed) item.updated = parts.fixed.info.last_deployed;
  if (parts.fixed.chart?.metadata) item.chart = parts.fixed.chart.metadata;
  return item;
}

/**
 * A compressed body up to this size is also kept in the LATEST item, so reading the latest revision (every
 * status, every audit snapshot) is one GetItem instead of a GetItem and a chunk Query. Bigger ones (and any
 * that would take the item past LATEST_ITEM_BUDGET) are read from their chunks, which stay the record of truth.
 */
const INLINE_BODY_MAX_BYTES = 64 * 1024;
/** Under DynamoDB's 400 KB per item, with room for the estimate's error (attribute overheads). */
const LATEST_ITEM_BUDGET = 380 * 1024;
const INLINE_BODY_ATTRIBUTE = "inlineBody";

export function hasInlineBody(item: Item): boolean {
  return item[INLINE_BODY_ATTRIBUTE] instanceof Uint8Array;
}

/**
 * The LATEST pointer is a full copy of the revision item plus the index keys, and the compressed body when it is
 * one chunk that fits (see INLINE_BODY_MAX_BYTES). The copy is not in the indexes' projections, so listings
 * do not carry it; it is checked like a chunk (size, sha256) when read.
 */
export function latestItemFrom(revision: Item, compressedBody?: Uint8Array): Item {
  const item: Item = { ...revision, SK: LATEST_SORT_KEY };
  const position = `${revision.cluster}#${revision.namespace}#${revision.name}`;
  item[RELEASES_INDEX.partitionKey] = RELEASES_INDEX.value;
  item[RELEASES_INDEX.sortKey] = position;
  if (revision.status === "deployed") {
    item[DEPLOYED_INDEX.partitionKey] = DEPLOYED_INDEX.value;
    item[DEPLOYED_INDEX.sortKey] = position;
  }
  const record = revision.manifest as ManifestRecord;
  if (
    compressedBody &&
    record.chunks === 1 &&
    compressedBody.length <= INLINE_BODY_MAX_BYTES &&
    // JSON's quotes and punctuation over-count DynamoDB's per-attribute overheads: a safe estimate.
    Buffer.byteLength(JSON.stringify(item)) + INLINE_BODY_ATTRIBUTE.length + compressedBody.length <= LATEST_ITEM_BUDGET
  ) {
    item[INLINE_BODY_ATTRIBUTE] = compressedBody;
  }
  return item;
}

export function mutableAttributes(mutable: MutableFields): Item {
  const attributes: Item = { status: mutable.status };
  if (mutable.description !== undefined) attributes.description = mutable.description;
  if (mutable.deleted !== undefined) attributes.deleted = mutable.deleted;
  if (mutable.hookRuns !== undefined) attributes.hookRuns = JSON.stringify(mutable.hookRuns);
  if (mutable.source !== undefined) attributes.source = JSON.stringify(mutable.source);
  return attributes;
}

export function mutableFromItem(item: Item): MutableFields {
  const mutable: MutableFields = { status: item.status as ReleaseStatus };
  if (typeof item.description === "string") mutable.description = item.description;
  if (typeof item.deleted === "string") mutable.deleted = item.deleted;
  if (typeof item.hookRuns === "string") mutable.hookRuns = JSON.parse(item.hookRuns);
  if (typeof item.source === "string") mutable.source = JSON.parse(item.source);
  return mutable;
}

export function metadataFromItem(item: Item): ReleaseMetadata {
  return assembleMetadata(JSON.parse(item.meta as string) as ReleaseMetadata, mutableFromItem(item));
}

export function summaryFromItem(item: Item): ReleaseSummary {
  const summary: ReleaseSummary = {
    cluster: item.cluster as string,
    namespace: item.namespace as string,
    name: item.name as string,
    revision: Number(item.revision),
    status: item.status as ReleaseStatus,
  };
  if (typeof item.updated === "string") summary.updated = item.updated;
  if (item.chart) summary.chart = item.chart as ChartMetadata;
  if (typeof item.description === "string") summary.description = item.description;
  return summary;
}

/**
 * SET/REMOVE for the mutable fields of an existing item. `replace` clears
 * fields absent from `mutable` (a re-put states them all); otherwise only the
 * given ones change (updateStatus).
 */
export function mutableUpdate(
  mutable: Partial<MutableFields>,
  replace: boolean,
  onLatest: boolean,
): { expression: string; names: Record<string, string>; values: Record<string, unknown> } {
  const set: string[] = [];
  const remove: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const attributes = mutableAttributes({ status: mutable.status ?? "unknown", ...mutable });
  if (mutable.status === undefined) delete attributes.status;
  for (const field of ["status", "description", "deleted", "hookRuns", "source"]) {
    names[`#${field}`] = field;
    if (attributes[field] !== undefined) {
      set.push(`#${field} = :${field}`);
      values[`:${field}`] = attributes[field];
    } else if (replace) {
      remove.push(`#${field}`);
    } else {
      delete names[`#${field}`];
    }
  }
  if (onLatest && mutable.status !== undefined) {
    names["#gpk"] = DEPLOYED_INDEX.partitionKey;
    names["#gsk"] = DEPLOYED_INDEX.sortKey;
    if (mutable.status === "deployed") {
      set.push("#gpk = :gpk", "#gsk = #gsi2sk");
      names["#gsi2sk"] = RELEASES_INDEX.sortKey;
      values[":gpk"] = DEPLOYED_INDEX.value;
    } else {
      // REMOVE, never an empty string: that is how an item leaves a sparse index.
      remove.push("#gpk", "#gsk");
    }
  }
  const expression = [set.length ? `SET ${set.join(", ")}` : "", remove.length ? `REMOVE ${remove.join(", ")}` : ""]
    .filter(Boolean)
    .join(" ");
  return { expression, names, values };
}

/**
 * A revision item's manifest record, checked, and how to turn its chunks (or the LATEST item's inline copy) into
 * the release: the one place every read (a single release's chunk Query, `getLatestOfEach`'s batched chunk
 * reads, the inline copy) decodes a stored body, so a damaged one is the same ManifestCorruptError for each.
 */
export function storedBody(key: ReleaseKey, item: Item) {
  const revision = Number(item.revision);
  const record = item.manifest as ManifestRecord;
  const problem = (message: string, cause?: unknown): never => {
    throw new ManifestCorruptError(key, revision, message, { cause });
  };
  if (record?.storage !== "chunks" || record.enc !== "gzip") problem("unknown manifest storage");
  const release = (chunks: { index: number; data: Uint8Array }[]): Release =>
    withStoredSource(
      assembleRelease(metadataFromItem(item), unpackBody(record, chunks, problem)),
      mutableFromItem(item).source,
    );
  const inline = item[INLINE_BODY_ATTRIBUTE];
  return {
    revision,
    record,
    problem,
    release,
    /** From the LATEST item's own copy of its body, when it has one: no chunk to read. */
    inlineRelease: (): Release | undefined =>
      inline instanceof Uint8Array ? release([{ index: 0, data: inline }]) : undefined,
  };
}
