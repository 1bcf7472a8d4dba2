/**
 * The DynamoDB ReleaseStore (layout in table-schema.ts). Writes are transactions
 * with conditions: a revision is created only if absent, and the LATEST pointer
 * only moves forward, so concurrent writers of one revision cannot both win.
 * Metadata reads (history, list, latest metadata) never touch manifest chunks.
 */
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { type Clock, systemClock } from "../ports.ts";
import type { Release, ReleaseKey, ReleaseMetadata, ReleaseSummary } from "../release/model.ts";
import type { RevisionSource } from "../release/storage-identity.ts";
import { validateReleaseKey, validateRevision } from "../release/validation.ts";
import type { StoreLocation } from "./dynamodb-errors.ts";
import {
  LATEST_SORT_KEY,
  latestItemFrom,
  metadataFromItem,
  mutableFromItem,
  mutableUpdate,
  releasePartitionKey,
  revisionItem,
  storedBody,
} from "./dynamodb-items.ts";
import { readLatestOfEach, readLatestSummaries } from "./dynamodb-latest-of-each.ts";
import {
  deployedQuery,
  listFromIndex,
  listRevisionsFromTable,
  readRevisionSources,
  releasesQuery,
} from "./dynamodb-listing.ts";
import { removeStoredRevision } from "./dynamodb-remove.ts";
import { type Item, Table } from "./dynamodb-table.ts";
import { ReleaseConflictError, ReleaseNotFoundError } from "./errors.ts";
import { blobPrefix, blobSortKey, type ManifestRecord, packBody, revisionSortKey } from "./manifest-chunks.ts";
import { cursorRevision, decodeCursor, encodeCursor, resolveLimit, revisionScope } from "./paging.ts";
import type {
  LatestRead,
  ListFilter,
  Page,
  PageRequest,
  PutResult,
  ReleaseStore,
  RemoveResult,
  RevisionFilter,
} from "./release-store.ts";
import {
  checkMetadataSize,
  type MutableFields,
  reconcileMutable,
  splitRelease,
  validateReleaseForStore,
} from "./revision-content.ts";

/** Bounds the retries when LATEST moves between reading it and updating a status. */
const MAX_WRITE_ATTEMPTS = 5;

export interface DynamoDbStoreOptions extends StoreLocation {
  client: DynamoDBDocumentClient;
  /** Stamps stored revisions (default: the system clock). */
  clock?: Clock;
}

export class DynamoDbReleaseStore implements ReleaseStore {
  readonly #name: string;
  readonly #table: Table;
  readonly #clock: Clock;

  constructor(options: DynamoDbStoreOptions) {
    this.#name = options.tableName;
    this.#table = new Table(options.client, {
      tableName: options.tableName,
      region: options.region,
      endpoint: options.endpoint,
    });
    this.#clock = options.clock ?? systemClock;
  }

  async getRevision(key: ReleaseKey, revision: number): Promise<Release> {
    const k = validateReleaseKey(key);
    const rev = validateRevision(revision);
    const item = await this.#table.get(releasePartitionKey(k), revisionSortKey(rev));
    if (!item) throw new ReleaseNotFoundError(k, rev);
    return this.#withBody(k, item);
  }

  async getLatest(key: ReleaseKey): Promise<Release> {
    const k = validateReleaseKey(key);
    const item = await this.#table.get(releasePartitionKey(k), LATEST_SORT_KEY);
    if (!item) throw new ReleaseNotFoundError(k);
    return this.#withBody(k, item);
  }

  async getLatestOfEach(keys: readonly ReleaseKey[]): Promise<LatestRead[]> {
    return readLatestOfEach(this.#table, keys);
  }

  async history(key: ReleaseKey, page: PageRequest = {}): Promise<Page<ReleaseMetadata>> {
    const k = validateReleaseKey(key);
    const limit = resolveLimit(page.limit);
    const pk = releasePartitionKey(k);
    const before = page.cursor === undefined ? undefined : cursorRevision(decodeCursor("history", page.cursor).before);
    const { items, more } = await this.#table.collect(
      {
        TableName: this.#name,
        KeyConditionExpression: "PK = :pk AND begins_with(SK, :rev)",
        ExpressionAttributeValues: { ":pk": pk, ":rev": "REV#" },
        ProjectionExpression: "PK, SK, revision, meta, #status, description, deleted, hookRuns",
        ExpressionAttributeNames: { "#status": "status" },
        ScanIndexForward: false,
        ConsistentRead: true,
        ExclusiveStartKey: before === undefined ? undefined : { PK: pk, SK: revisionSortKey(before) },
      },
      limit,
    );
    if (items.length === 0 && page.cursor === undefined) throw new ReleaseNotFoundError(k);
    const metadata = items.map(metadataFromItem);
    return more
      ? { items: metadata, cursor: encodeCursor("history", { before: metadata.at(-1)!.version }) }
      : { items: metadata };
  }

  async putRevision(cluster: string, release: Release, source?: RevisionSource): Promise<PutResult> {
    validateReleaseForStore(cluster, release);
    const key: ReleaseKey = { cluster, namespace: release.namespace, name: release.name };
    const parts = splitRelease(release);
    if (source) parts.mutable.source = source;
    checkMetadataSize(parts);
    const pk = releasePartitionKey(key);
    const existing = await this.#table.get(pk, revisionSortKey(release.version));
    if (existing) return this.#reconcile(key, existing, parts.contentHash, parts.mutable);

    const { record, chunks } = packBody(parts.body, parts.contentHash);
    const item = revisionItem(key, parts, record, this.#clock.now().toISOString());
    await this.#writeChunks(pk, release.version, record, chunks);
    try {
      await this.#createRevision(key, item, chunks[0]);
      return "created";
    } catch (error) {
      if (!(error instanceof RevisionExistsSignal)) throw error;
      const winner = await this.#table.get(pk, revisionSortKey(release.version));
      if ((winner?.manifest as ManifestRecord | undefined)?.blobId !== record.blobId) {
        await this.#deleteChunks(pk, blobPrefix(release.version, record.blobId));
      }
      if (!winner) throw new ReleaseConflictError(key, release.version, "revision was deleted while being written");
      return this.#reconcile(key, winner, parts.contentHash, parts.mutable);
    }
  }

  async revisionSources(key: ReleaseKey): Promise<{ revision: number; source?: RevisionSource }[]> {
    return readRevisionSources(this.#table, validateReleaseKey(key));
  }

  async removeRevision(key: ReleaseKey, revision: number): Promise<RemoveResult> {
    return removeStoredRevision(this.#table, validateReleaseKey(key), validateRevision(revision));
  }

  async listReleases(filter: ListFilter, page: PageRequest = {}): Promise<Page<ReleaseSummary>> {
    return listFromIndex(this.#table, "list", page, releasesQuery(filter));
  }

  async latestSummaries(keys: readonly ReleaseKey[]): Promise<(ReleaseSummary | undefined)[]> {
    return readLatestSummaries(this.#table, keys);
  }

  async listRevisions(filter: RevisionFilter, page: PageRequest = {}): Promise<Page<ReleaseSummary>> {
    return listRevisionsFromTable(this.#table, filter, page, revisionScope(filter));
  }

  async listDeployed(page: PageRequest = {}): Promise<Page<ReleaseSummary>> {
    return listFromIndex(this.#table, "deployed", page, deployedQuery());
  }

  // --- internals -----------------------------------------------------------------------------------

  async #reconcile(key: ReleaseKey, existing: Item, contentHash: string, mutable: MutableFields): Promise<PutResult> {
    const revision = Number(existing.revision);
    if (existing.contentHash !== contentHash) {
      throw new ReleaseConflictError(key, revision, "already stored with different content (not overwritten)");
    }
    const { result, write } = reconcileMutable(mutableFromItem(existing), mutable);
    if (write) await this.#applyMutable(key, revision, write, true, contentHash);
    return result;
  }

  /** Creates REV#n and, unless a newer revision is already the latest, moves LATEST to it. */
  async #createRevision(key: ReleaseKey, item: Item, firstChunk: Uint8Array | undefined): Promise<void> {
    const revision = item.revision as number;
    const putRevision = {
      Put: { TableName: this.#name, Item: item, ConditionExpression: "attribute_not_exists(PK)" },
    };
    const putLatest = {
      Put: {
        TableName: this.#name,
        Item: latestItemFrom(item, firstChunk),
        ConditionExpression: "attribute_not_exists(PK) OR revision < :rev",
        ExpressionAttributeValues: { ":rev": revision },
      },
    };
    const reasons = await this.#table.transact([putRevision, putLatest]);
    if (!reasons) return;
    if (reasons[0] === "ConditionalCheckFailed") throw new RevisionExistsSignal();
    if (reasons[1] !== "ConditionalCheckFailed") {
      throw new ReleaseConflictError(key, revision, `write was cancelled (${reasons.join(", ")}); retry`);
    }
    // A newer revision is already the latest: store this one without touching the pointer.
    const alone = await this.#table.transact([putRevision]);
    if (alone?.[0] === "ConditionalCheckFailed") throw new RevisionExistsSignal();
    if (alone) throw new ReleaseConflictError(key, revision, `write was cancelled (${alone.join(", ")}); retry`);
  }

  /** Updates the mutable fields of REV#n, and of LATEST when it points at n, in one transaction. */
  async #applyMutable(
    key: ReleaseKey,
    revision: number,
    change: Partial<MutableFields>,
    replace: boolean,
    contentHash?: string,
  ): Promise<void> {
    const pk = releasePartitionKey(key);
    const onRevision = mutableUpdate(change, replace, false);
    const condition = contentHash === undefined ? "attribute_exists(PK)" : "contentHash = :hash";
    const revisionUpdate = {
      Update: {
        TableName: this.#name,
        Key: { PK: pk, SK: revisionSortKey(revision) },
        UpdateExpression: onRevision.expression,
        ConditionExpression: condition,
        ExpressionAttributeNames: onRevision.names,
        ExpressionAttributeValues: {
          ...onRevision.values,
          ...(contentHash === undefined ? {} : { ":hash": contentHash }),
        },
      },
    };
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const latest = await this.#table.get(pk, LATEST_SORT_KEY, "revision");
      const actions: object[] = [revisionUpdate];
      if (latest && Number(latest.revision) === revision) {
        const onLatest = mutableUpdate(change, replace, true);
        actions.push({
          Update: {
            TableName: this.#name,
            Key: { PK: pk, SK: LATEST_SORT_KEY },
            UpdateExpression: onLatest.expression,
            ConditionExpression: "revision = :rev",
            ExpressionAttributeNames: onLatest.names,
            ExpressionAttributeValues: { ...onLatest.values, ":rev": revision },
          },
        });
      }
      const reasons = await this.#table.transact(actions);
      if (!reasons) return;
      if (reasons[0] === "ConditionalCheckFailed") {
        if (contentHash === undefined) throw new ReleaseNotFoundError(key, revision);
        throw new ReleaseConflictError(key, revision, "content changed while updating its status");
      }
      // LATEST moved between our read and the write: read it again.
    }
    throw new ReleaseConflictError(key, revision, "the release kept changing while updating its status; retry");
  }

  async #withBody(key: ReleaseKey, item: Item): Promise<Release> {
    const { revision, record, problem, release, inlineRelease } = storedBody(key, item);
    const inline = inlineRelease();
    if (inline) return inline;
    const chunks: { index: number; data: Uint8Array }[] = [];
    const prefix = blobPrefix(revision, record.blobId);
    await this.#table.queryAll(
      {
        TableName: this.#name,
        KeyConditionExpression: "PK = :pk AND begins_with(SK, :blob)",
        ExpressionAttributeValues: { ":pk": item.PK, ":blob": prefix },
        ConsistentRead: true,
      },
      (chunk) => {
        chunks.push({ index: Number(String(chunk.SK).slice(prefix.length)), data: chunk.data as Uint8Array });
        if (chunks.length > record.chunks) problem(`more than ${record.chunks} chunk(s) stored`);
      },
    );
    return release(chunks);
  }

  async #writeChunks(pk: string, revision: number, record: ManifestRecord, chunks: Buffer[]): Promise<void> {
    const requests = chunks.map((data, index) => ({
      PutRequest: { Item: { PK: pk, SK: blobSortKey(revision, record.blobId, index), data } },
    }));
    // 20 chunks of <= 350 KB keep a call well under its 16 MB cap.
    await this.#table.batchWrite(requests, 20);
  }

  async #deleteChunks(pk: string, prefix: string): Promise<void> {
    const keys = await this.#table.allKeys({
      TableName: this.#name,
      KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
      ExpressionAttributeValues: { ":pk": pk, ":prefix": prefix },
    });
    await this.#table.batchDelete(keys);
  }
}

/** Internal: the conditional create found the revision already there. */
class RevisionExistsSignal extends Error {}
