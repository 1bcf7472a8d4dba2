/**
 * The DynamoDB SnapshotStore (layout in table-schema.ts; the history's other stores share the table). Every write is
 * conditional, so duplicate deliveries and racing workers cannot fork a history:
 * an extend requires the same digest, another run and an earlier lastSeenAt; a create requires
 * that the previous latest is still flagged latest (or, for a first snapshot,
 * that no FIRST guard exists), in one transaction.
 */
import { QueryCommand, type QueryCommandInput, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { ReleaseKey } from "../release/model.ts";
import type { Item, Table, WriteStats } from "../store/dynamodb-table.ts";
import { resolveLimit } from "../store/paging.ts";
import type { Page } from "../store/release-store.ts";
import { fleetPartition, readHealthEntries } from "./dynamodb-fleet-partitions.ts";
import {
  briefResource,
  fleetEntryFrom,
  freshnessUpdate,
  snapshotPartitionKey as partitionKey,
  summaryFrom,
} from "./dynamodb-snapshot-items.ts";
import { SnapshotCorruptError, SnapshotNotFoundError } from "./errors.ts";
import { driftCountOf, type FleetEntry, HEALTH_SEVERITY, parseSnapshotId, runIdFor, type Snapshot } from "./model.ts";
import { expired } from "./retention.ts";
import { decodeScopedCursor, encodeScopedCursor, packText, TEXT_BUDGET_BYTES, unpackText } from "./snapshot-codec.ts";
import type { FleetFilter, SeenAgain, SnapshotQuery, SnapshotStore, WriteOutcome } from "./snapshot-store.ts";
import { checkFleetFilter, fleetOrder, fleetScope, listScope } from "./store-rules.ts";
import { FLEET_INDEX } from "./table-schema.ts";

const HEALTH_ORDER = (Object.keys(HEALTH_SEVERITY) as (keyof typeof HEALTH_SEVERITY)[]).sort(
  (a, b) => HEALTH_SEVERITY[a] - HEALTH_SEVERITY[b],
);

export type { WriteStats } from "../store/dynamodb-table.ts";

const position = (r: ReleaseKey) => `${r.cluster}#${r.namespace}#${r.name}`;

export class DynamoDbSnapshotStore implements SnapshotStore {
  readonly #t: Table;

  /** On the snapshots table (history-stores.ts opens it for all five stores of the history). */
  constructor(table: Table) {
    this.#t = table;
  }

  /** Items and write units written so far to the table, by any of the history's stores (the bench's figures). */
  get stats(): WriteStats {
    return this.#t.stats;
  }

  async latest(release: ReleaseKey): Promise<Snapshot | undefined> {
    const result = await this.#t.send(
      new QueryCommand({
        TableName: this.#t.name,
        KeyConditionExpression: "PK = :pk AND begins_with(SK, :s)",
        ExpressionAttributeValues: { ":pk": partitionKey(release), ":s": "S#" },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    const item = result.Items?.[0] as Item | undefined;
    return item ? summaryFrom(item) : undefined;
  }

  async extend(snapshot: Snapshot, seen: SeenAgain): Promise<WriteOutcome> {
    const fresh = freshnessUpdate(seen.freshness);
    const update = {
      TableName: this.#t.name,
      Key: { PK: partitionKey(snapshot.release), SK: `S#${snapshot.runId}` },
      // previousSeenAt: the sighting this one follows (a redelivered audit's rollup needs it: rollup.ts).
      // FLEETPK: an item written before the index was sharded moves to its shard (a no-op for the others).
      UpdateExpression: `SET previousSeenAt = lastSeenAt, lastSeenAt = :at, lastRunId = :run, expiresAt = :exp, FLEETPK = :fpk${fresh.set} ADD seenCount :one${fresh.remove}`,
      // A later sighting: another run, observed later (not "a greater run id": see isLaterSighting).
      ConditionExpression: "digest = :digest AND lastRunId <> :run AND lastSeenAt < :at AND attribute_exists(FLEETPK)",
      ExpressionAttributeValues: {
        ":at": seen.observedAt,
        ":run": seen.runId,
        ":exp": seen.expiresAt,
        ":one": 1,
        ":digest": snapshot.digest,
        ":fpk": fleetPartition(snapshot.health.overall, snapshot.release),
        ...fresh.values,
      },
    };
    const done = await this.#t.conditional(new UpdateCommand(update));
    if (done) this.#t.stats.items += 1;
    return done ? "ok" : "conflict";
  }

  async create(next: Snapshot & { text: string }, previous?: Snapshot): Promise<WriteOutcome> {
    const pk = partitionKey(next.release);
    // The freshness is per sighting (an extend replaces it): item attributes, not the document.
    const { text, ownText, resources, freshness, ...summaryDoc } = next;
    // Two texts share the body item's budget (DynamoDB's 400 KB item).
    const budget = ownText === undefined ? TEXT_BUDGET_BYTES : Math.floor(TEXT_BUDGET_BYTES / 2);
    const packed = packText(text, budget);
    const summary: Item = {
      PK: pk,
      SK: `S#${next.runId}`,
      snapshotId: next.id,
      // Resources in brief (identity + health) so change detection needs no body read; the body has the rest.
      doc: JSON.stringify({ ...summaryDoc, resources: resources.map(briefResource), textTruncated: packed.truncated }),
      digest: next.digest,
      runId: next.runId,
      lastRunId: next.lastRunId,
      firstSeenAt: next.firstSeenAt,
      lastSeenAt: next.lastSeenAt,
      seenCount: next.seenCount,
      expiresAt: next.expiresAt,
      cluster: next.release.cluster,
      namespace: next.release.namespace,
      name: next.release.name,
      overall: next.health.overall,
      healthMessage: next.health.message,
      revision: next.revision,
      driftCount: driftCountOf(next),
      ...(freshness ? { freshnessState: freshness.state } : {}),
      ...(freshness?.clusterRevision !== undefined ? { clusterRevision: freshness.clusterRevision } : {}),
      [FLEET_INDEX.partitionKey]: fleetPartition(next.health.overall, next.release),
      [FLEET_INDEX.sortKey]: position(next.release),
    };
    const body: Item = {
      PK: pk,
      SK: `B#${next.runId}`,
      resources: JSON.stringify(resources),
      text: packed.gzip,
      ...(ownText === undefined ? {} : { ownText: packText(ownText, budget).gzip }),
      expiresAt: next.expiresAt,
    };
    const actions: object[] = [
      { Put: { TableName: this.#t.name, Item: summary, ConditionExpression: "attribute_not_exists(PK)" } },
      { Put: { TableName: this.#t.name, Item: body } },
    ];
    if (previous) {
      actions.push({
        Update: {
          TableName: this.#t.name,
          Key: { PK: pk, SK: `S#${previous.runId}` },
          UpdateExpression: "REMOVE FLEETPK, FLEETSK",
          ConditionExpression: "attribute_exists(FLEETPK) AND lastRunId = :last",
          ExpressionAttributeValues: { ":last": previous.lastRunId },
        },
      });
    } else {
      actions.push({
        Put: {
          TableName: this.#t.name,
          Item: { PK: pk, SK: "FIRST", snapshotId: next.id, expiresAt: next.expiresAt },
          ConditionExpression: "attribute_not_exists(PK) OR expiresAt < :now",
          ExpressionAttributeValues: { ":now": Math.floor(Date.parse(next.firstSeenAt) / 1000) },
        },
      });
    }
    const done = (await this.#t.transact(actions)) === undefined;
    if (done) this.#t.stats.items += actions.length;
    return done ? "ok" : "conflict";
  }

  async get(id: string, now: Date): Promise<Snapshot> {
    const { release, runId } = parseSnapshotId(id);
    const [summaryItem, bodyItem] = await Promise.all([
      this.#t.get(partitionKey(release), `S#${runId}`),
      this.#t.get(partitionKey(release), `B#${runId}`),
    ]);
    if (!summaryItem) throw new SnapshotNotFoundError(id);
    const snapshot = summaryFrom(summaryItem);
    if (expired(snapshot, now)) throw new SnapshotNotFoundError(id);
    if (!bodyItem) throw new SnapshotCorruptError(id, "its body item (resources and status text) is missing");
    try {
      snapshot.resources = JSON.parse(String(bodyItem.resources));
    } catch (error) {
      throw new SnapshotCorruptError(id, "its resources are not JSON", { cause: error });
    }
    if (!Array.isArray(snapshot.resources)) throw new SnapshotCorruptError(id, "its resources are not a list");
    snapshot.text = unpackText(id, bodyItem.text);
    if (bodyItem.ownText !== undefined) snapshot.ownText = unpackText(id, bodyItem.ownText);
    return snapshot;
  }

  async list(release: ReleaseKey, query: SnapshotQuery, now: Date): Promise<Page<Snapshot>> {
    const limit = resolveLimit(query.limit);
    const scope = listScope(release, query);
    const start = query.cursor ? decodeScopedCursor("snapshots", scope, query.cursor) : undefined;
    // Newest first by run id; `until` bounds the key, `since` and expiry are filters.
    const upper = start ? `S#${start}` : query.until ? `S#${runIdFor(query.until)}~` : "S#~";
    const values: Record<string, unknown> = {
      ":pk": partitionKey(release),
      ":lo": "S#",
      ":hi": upper,
      ":now": Math.floor(now.getTime() / 1000),
    };
    let filter = "expiresAt > :now";
    if (query.since) {
      filter += " AND lastSeenAt >= :since";
      values[":since"] = query.since.toISOString();
    }
    if (query.until) {
      filter += " AND firstSeenAt <= :until";
      values[":until"] = query.until.toISOString();
    }
    const input: QueryCommandInput = {
      TableName: this.#t.name,
      KeyConditionExpression: start ? "PK = :pk AND SK BETWEEN :lo AND :hi" : "PK = :pk AND SK BETWEEN :lo AND :hi",
      FilterExpression: filter,
      ExpressionAttributeValues: values,
      ScanIndexForward: false,
      ConsistentRead: true,
    };
    const found = await this.#t.collect(input, limit, (item) => !start || String(item.SK) < `S#${start}`);
    const page = found.items.map(summaryFrom);
    return found.more && page.length > 0
      ? { items: page, cursor: encodeScopedCursor("snapshots", scope, page.at(-1)!.runId) }
      : { items: page };
  }

  async fleet(filter: FleetFilter, now: Date): Promise<Page<FleetEntry>> {
    const limit = resolveLimit(filter.limit);
    checkFleetFilter(filter);
    const scope = fleetScope(filter);
    const start = filter.cursor ? decodeScopedCursor("fleet", scope, filter.cursor) : undefined;
    const healths = HEALTH_ORDER.filter((h) => !filter.health || filter.health.includes(h));
    const entries: FleetEntry[] = [];
    let more = false;
    for (const health of healths) {
      if (start && `${HEALTH_SEVERITY[health]}#~` < start) continue;
      // A cursor inside this health's partition starts the Query there (a later page must not re-read the
      // partition from its start: a 9,000-release health would read 45,000 items over its pages).
      const prefix = `${HEALTH_SEVERITY[health]}#`;
      const after = start?.startsWith(prefix) ? start.slice(prefix.length) : undefined;
      // Its partitions merged (write-sharded: dynamodb-fleet-partitions.ts); a page of 50 reads ~50 + a chunk each.
      const found = await readHealthEntries(this.#t, health, filter, now, after, limit - entries.length);
      entries.push(...found.items.map(fleetEntryFrom));
      if (found.more) {
        more = true;
        break;
      }
    }
    return more && entries.length > 0
      ? { items: entries, cursor: encodeScopedCursor("fleet", scope, fleetOrder(entries.at(-1)!)) }
      : { items: entries };
  }
}
