/**
 * `getLatestOfEach` on DynamoDB: the LATEST items of every release in one BatchGetItem, then every manifest
 * chunk they name in another (their keys follow from the item: revision, blob id, chunk count), instead of a
 * GetItem and a chunk Query per release; a LATEST item that carries its body inline needs no chunk read. The
 * same checks as a single read: a damaged body is a ManifestCorruptError for that release alone.
 */
import type { ReleaseKey, ReleaseSummary } from "../release/model.ts";
import { validateReleaseKey } from "../release/validation.ts";
import { hasInlineBody, LATEST_SORT_KEY, releasePartitionKey, storedBody, summaryFromItem } from "./dynamodb-items.ts";
import type { Item, Table } from "./dynamodb-table.ts";
import { ManifestCorruptError, ReleaseNotFoundError } from "./errors.ts";
import { blobSortKey, type ManifestRecord } from "./manifest-chunks.ts";
import type { LatestRead } from "./release-store.ts";
import { SUMMARY_ATTRIBUTES } from "./table-schema.ts";

export async function readLatestOfEach(table: Table, keys: readonly ReleaseKey[]): Promise<LatestRead[]> {
  const valid = keys.map((key) => validateReleaseKey(key));
  const partitions = [...new Set(valid.map(releasePartitionKey))];
  const latest = new Map<string, Item>();
  for (const item of await table.batchGet(partitions.map((PK) => ({ PK, SK: LATEST_SORT_KEY })))) {
    latest.set(String(item.PK), item);
  }
  const chunkKeys: Item[] = [];
  for (const item of latest.values()) {
    const record = item.manifest as ManifestRecord | undefined;
    if (record?.storage !== "chunks" || !Number.isInteger(record.chunks)) continue;
    if (hasInlineBody(item)) continue; // its body came with it
    for (let i = 0; i < record.chunks; i++) {
      chunkKeys.push({ PK: item.PK, SK: blobSortKey(Number(item.revision), record.blobId, i) });
    }
  }
  const chunks = new Map<string, Item>();
  for (const chunk of await table.batchGet(chunkKeys)) chunks.set(`${chunk.PK}|${chunk.SK}`, chunk);
  return valid.map((key) => {
    const item = latest.get(releasePartitionKey(key));
    if (!item) return { error: new ReleaseNotFoundError(key) };
    try {
      return { release: releaseFrom(key, item, chunks) };
    } catch (error) {
      if (error instanceof ManifestCorruptError) return { error };
      throw error;
    }
  });
}

function releaseFrom(key: ReleaseKey, item: Item, chunks: Map<string, Item>) {
  const body = storedBody(key, item);
  const inline = body.inlineRelease();
  if (inline) return inline;
  const found: { index: number; data: Uint8Array }[] = [];
  for (let i = 0; i < body.record.chunks; i++) {
    const chunk = chunks.get(`${item.PK}|${blobSortKey(body.revision, body.record.blobId, i)}`);
    if (chunk) found.push({ index: i, data: chunk.data as Uint8Array });
  }
  return body.release(found);
}

/** `latestSummaries` on DynamoDB: the LATEST items of every release in one BatchGetItem, their summary only. */
export async function readLatestSummaries(
  table: Table,
  keys: readonly ReleaseKey[],
): Promise<(ReleaseSummary | undefined)[]> {
  const valid = keys.map((key) => validateReleaseKey(key));
  const partitions = [...new Set(valid.map(releasePartitionKey))];
  const found = new Map<string, ReleaseSummary>();
  const items = await table.batchGet(
    partitions.map((PK) => ({ PK, SK: LATEST_SORT_KEY })),
    ["PK", ...SUMMARY_ATTRIBUTES],
  );
  for (const item of items) found.set(String(item.PK), summaryFromItem(item));
  return valid.map((key) => found.get(releasePartitionKey(key)));
}
