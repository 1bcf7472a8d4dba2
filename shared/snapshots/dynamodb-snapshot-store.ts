/**
 * The DynamoDB SnapshotStore (layout in table-schema.ts). Every write is
 * conditional, so duplicate deliveries and racing workers cannot fork a history:
 * an extend requires the same digest, another run and an earlier lastSeenAt; a create requires
 * that the previous latest is still flagged latest (or, for a first snapshot,
 * that no FIRST guard exists), in one transaction.
 */
import {
  type DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import type { HealthStatus } from "../health/index.ts";
import { type Clock, systemClock } from "../ports.ts";
import type { ReleaseKey } from "../release/model.ts";
import type { StoreLocation } from "../store/dynamodb-errors.ts";
import { type Item, Table, type WriteStats } from "../store/dynamodb-table.ts";
import { resolveLimit } from "../store/paging.ts";
import type { Page, PageRequest } from "../store/release-store.ts";
import { DynamoDbAuditRuns } from "./dynamodb-audit-runs.ts";
import { SnapshotCorruptError, SnapshotNotFoundError } from "./errors.ts";
import {
  type AuditRun,
  driftCountOf,
  type FleetEntry,
  HEALTH_SEVERITY,
  parseSnapshotId,
  runIdFor,
  type Snapshot,
  type StoredFreshness,
} from "./model.ts";
import { dayStart } from "./rollup.ts";
import { isRollupAttribute, type RollupDay } from "./rollup-items.ts";
import { checkSnapshot, decodeScopedCursor, encodeScopedCursor, packText, unpackText } from "./snapshot-codec.ts";
import type {
  FleetFilter,
  FleetScopeFilter,
  MessageTally,
  SeenAgain,
  SnapshotQuery,
  SnapshotStore,
  WriteOutcome,
} from "./snapshot-store.ts";
import { checkFleetFilter, fleetOrder, fleetScope, listScope } from "./store-rules.ts";
import { FLEET_INDEX } from "./table-schema.ts";

const HEALTH_ORDER = (Object.keys(HEALTH_SEVERITY) as (keyof typeof HEALTH_SEVERITY)[]).sort(
  (a, b) => HEALTH_SEVERITY[a] - HEALTH_SEVERITY[b],
);

export type { WriteStats } from "../store/dynamodb-table.ts";

export interface DynamoDbSnapshotStoreOptions extends StoreLocation {
  client: DynamoDBDocumentClient;
  /** How long runs are kept (TTL), in days. */
  retentionDays?: number;
  /** Default: the system clock. */
  clock?: Clock;
}

const partitionKey = (r: ReleaseKey) => `SNAP#${r.cluster}#${r.namespace}#${r.name}`;
const position = (r: ReleaseKey) => `${r.cluster}#${r.namespace}#${r.name}`;

export class DynamoDbSnapshotStore implements SnapshotStore {
  readonly #t: Table;
  readonly #runs: DynamoDbAuditRuns;
  readonly #retentionDays: number;

  constructor(options: DynamoDbSnapshotStoreOptions) {
    this.#t = new Table(
      options.client,
      { tableName: options.tableName, region: options.region, endpoint: options.endpoint },
      { countWriteUnits: true },
    );
    this.#retentionDays = options.retentionDays ?? 90;
    this.#runs = new DynamoDbAuditRuns(this.#t, this.#retentionDays, options.clock ?? systemClock);
  }

  /** Items and write units written so far (the bench's figures). */
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
      UpdateExpression: `SET previousSeenAt = lastSeenAt, lastSeenAt = :at, lastRunId = :run, expiresAt = :exp${fresh.set} ADD seenCount :one${fresh.remove}`,
      // A later sighting: another run, observed later (not "a greater run id": see isLaterSighting).
      ConditionExpression: "digest = :digest AND lastRunId <> :run AND lastSeenAt < :at AND attribute_exists(FLEETPK)",
      ExpressionAttributeValues: {
        ":at": seen.observedAt,
        ":run": seen.runId,
        ":exp": seen.expiresAt,
        ":one": 1,
        ":digest": snapshot.digest,
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
    const { text, resources, freshness, ...summaryDoc } = next;
    const packed = packText(text);
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
      [FLEET_INDEX.partitionKey]: `HEALTH#${next.health.overall}`,
      [FLEET_INDEX.sortKey]: position(next.release),
    };
    const body: Item = {
      PK: pk,
      SK: `B#${next.runId}`,
      resources: JSON.stringify(resources),
      text: packed.gzip,
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
    if (snapshot.expiresAt * 1000 <= now.getTime()) throw new SnapshotNotFoundError(id);
    if (!bodyItem) throw new SnapshotCorruptError(id, "its body item (resources and status text) is missing");
    try {
      snapshot.resources = JSON.parse(String(bodyItem.resources));
    } catch (error) {
      throw new SnapshotCorruptError(id, "its resources are not JSON", { cause: error });
    }
    if (!Array.isArray(snapshot.resources)) throw new SnapshotCorruptError(id, "its resources are not a list");
    snapshot.text = unpackText(id, bodyItem.text);
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
      const found = await this.#t.collect(
        fleetQuery(this.#t.name, health, filter, now, after),
        limit - entries.length,
        (item) => !start || `${HEALTH_SEVERITY[health]}#${item.FLEETSK}` > start,
        // Only expired entries (TTL lags) and other clusters are filtered out: a page of 50 reads ~51 items.
        { rarelyDropped: true },
      );
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

  startRun(runId: string, startedAt: string): Promise<AuditRun & { sentParts: string[] }> {
    return this.#runs.startRun(runId, startedAt);
  }

  recordSent(runId: string, parts: { id: string; releases: number; cluster: string }[]): Promise<void> {
    return this.#runs.recordSent(runId, parts);
  }

  finishPlanning(runId: string, plannedAt: string): Promise<void> {
    return this.#runs.finishPlanning(runId, plannedAt);
  }

  completeMessage(
    runId: string,
    partId: string,
    tally: MessageTally,
    at: string,
    rollups: readonly RollupDay[] = [],
  ): Promise<boolean> {
    return this.#runs.completeMessage(
      runId,
      partId,
      tally,
      at,
      rollups.map((r) => this.#rollupAdd(r)),
    );
  }

  /** One day item of a cluster: ADD of every figure the message had (names aliased: any text may be one). */
  #rollupAdd(rollup: RollupDay): object {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {
      ":exp": Math.floor(dayStart(rollup.day) / 1000) + (this.#retentionDays + 1) * 86_400,
    };
    const adds = Object.entries(rollup.values).map(([name, value], i) => {
      names[`#a${i}`] = name;
      values[`:a${i}`] = value;
      return `#a${i} :a${i}`;
    });
    return {
      Update: {
        TableName: this.#t.name,
        Key: { PK: `${ROLLUP_PREFIX}${rollup.day}`, SK: `C#${rollup.cluster}` },
        UpdateExpression: `SET expiresAt = :exp${adds.length > 0 ? ` ADD ${adds.join(", ")}` : ""}`,
        ...(adds.length > 0 ? { ExpressionAttributeNames: names } : {}),
        ExpressionAttributeValues: values,
      },
    };
  }

  async rollups(days: readonly string[], cluster: string | undefined, now: Date): Promise<RollupDay[]> {
    const found: RollupDay[] = [];
    const nowSeconds = Math.floor(now.getTime() / 1000);
    await Promise.all(
      days.map((day) =>
        this.#t.queryAll(
          {
            TableName: this.#t.name,
            KeyConditionExpression: cluster ? "PK = :pk AND SK = :sk" : "PK = :pk AND begins_with(SK, :sk)",
            ExpressionAttributeValues: { ":pk": `${ROLLUP_PREFIX}${day}`, ":sk": cluster ? `C#${cluster}` : "C#" },
            ConsistentRead: true,
          },
          (item) => {
            if (Number(item.expiresAt) <= nowSeconds) return;
            const values: Record<string, number> = {};
            for (const [name, value] of Object.entries(item)) {
              if (isRollupAttribute(name) && typeof value === "number") values[name] = value;
            }
            found.push({ day, cluster: String(item.SK).slice(2), values });
          },
          ROLLUP_PAGES,
        ),
      ),
    );
    return found.sort((a, b) => a.day.localeCompare(b.day) || a.cluster.localeCompare(b.cluster));
  }

  getRun(runId: string): Promise<AuditRun> {
    return this.#runs.getRun(runId);
  }

  listRuns(page: PageRequest): Promise<Page<AuditRun>> {
    return this.#runs.listRuns(page);
  }

  async claimNotification(id: string, now: Date, staleMs = 300_000): Promise<boolean> {
    return this.#t.conditional(
      new UpdateCommand({
        ...this.#summaryItem(id),
        UpdateExpression: "SET notifyState = :sending, notifyAt = :now",
        ConditionExpression:
          "attribute_exists(PK) AND (attribute_not_exists(notifyState) OR notifyState = :failed OR (notifyState = :sending AND notifyAt < :stale))",
        ExpressionAttributeValues: {
          ":sending": "sending",
          ":failed": "failed",
          ":now": now.getTime(),
          ":stale": now.getTime() - staleMs,
        },
      }),
    );
  }

  async finishNotification(id: string, outcome: "sent" | "failed", now: Date): Promise<void> {
    await this.#t.send(
      new UpdateCommand({
        ...this.#summaryItem(id),
        UpdateExpression: "SET notifyState = :state, notifyAt = :now",
        ExpressionAttributeValues: { ":state": outcome, ":now": now.getTime() },
      }),
    );
  }

  /** The table and key of a snapshot's summary item (its notification state lives there). */
  #summaryItem(id: string) {
    const { release, runId } = parseSnapshotId(id);
    return { TableName: this.#t.name, Key: { PK: partitionKey(release), SK: `S#${runId}` } };
  }

  async sloState(release: ReleaseKey, now: Date): Promise<string | undefined> {
    const item = await this.#t.get(partitionKey(release), SLO_STATE);
    return item && Number(item.expiresAt) * 1000 > now.getTime() ? String(item.sloState) : undefined;
  }

  async swapSloState(
    release: ReleaseKey,
    from: string | undefined,
    to: string,
    at: Date,
    expiresAt: number,
  ): Promise<WriteOutcome> {
    // An expired item (TTL lags) counts as none, as sloState reads it.
    const condition =
      from === undefined
        ? { ConditionExpression: "attribute_not_exists(PK) OR expiresAt <= :now", values: {} }
        : { ConditionExpression: "sloState = :from AND expiresAt > :now", values: { ":from": from } };
    const done = await this.#t.conditional(
      new PutCommand({
        TableName: this.#t.name,
        Item: { PK: partitionKey(release), SK: SLO_STATE, sloState: to, at: at.toISOString(), expiresAt },
        ConditionExpression: condition.ConditionExpression,
        ExpressionAttributeValues: { ":now": Math.floor(at.getTime() / 1000), ...condition.values },
      }),
    );
    if (done) this.#t.stats.items += 1;
    return done ? "ok" : "conflict";
  }
}

/** Rollup items: PK = ROLLUP#<day>, SK = C#<cluster> (table-schema.ts). */
const ROLLUP_PREFIX = "ROLLUP#";
/** Bounds one day's Query: 1 MB pages of cluster items (a thousand clusters fit in a few). */
const ROLLUP_PAGES = 100;

/** A release's SLO burn state item, beside its snapshots (outside the S# range every listing reads). */
const SLO_STATE = "SLOSTATE";

function summaryFrom(item: Item): Snapshot {
  const id = typeof item.snapshotId === "string" ? item.snapshotId : String(item.PK);
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(String(item.doc));
  } catch (error) {
    throw new SnapshotCorruptError(id, "its document is not JSON", { cause: error });
  }
  const snapshot = {
    ...doc,
    lastRunId: item.lastRunId,
    lastSeenAt: item.lastSeenAt,
    seenCount: item.seenCount,
    expiresAt: item.expiresAt,
    ...(typeof item.previousSeenAt === "string" ? { previousSeenAt: item.previousSeenAt } : {}),
    ...freshnessFrom(item),
  };
  return checkSnapshot(id, snapshot);
}

/** The freshness attributes of a summary item (or its FLEET index copy). */
function freshnessFrom(item: Item): { freshness?: StoredFreshness } {
  if (typeof item.freshnessState !== "string") return {};
  const state = item.freshnessState as StoredFreshness["state"];
  return {
    freshness: typeof item.clusterRevision === "number" ? { state, clusterRevision: item.clusterRevision } : { state },
  };
}

/** An extend's SET / REMOVE of the freshness attributes: this sighting's, or none. */
function freshnessUpdate(freshness: StoredFreshness | undefined) {
  const values: Record<string, unknown> = {};
  const removed: string[] = [];
  let set = "";
  if (freshness) {
    set += ", freshnessState = :fs";
    values[":fs"] = freshness.state;
  } else removed.push("freshnessState");
  if (freshness?.clusterRevision !== undefined) {
    set += ", clusterRevision = :cr";
    values[":cr"] = freshness.clusterRevision;
  } else removed.push("clusterRevision");
  return { set, remove: removed.length ? ` REMOVE ${removed.join(", ")}` : "", values };
}

function briefResource(resource: Snapshot["resources"][number]): Snapshot["resources"][number] {
  const brief = {
    apiVersion: resource.apiVersion,
    kind: resource.kind,
    name: resource.name,
    health: resource.health,
    message: "",
    cells: {},
  };
  return resource.namespace ? { ...brief, namespace: resource.namespace } : brief;
}

/** The FLEET index Query of one health, narrowed by the filter (key condition where it can, else filters). */
function fleetQuery(
  table: string,
  health: HealthStatus,
  filter: FleetScopeFilter,
  now: Date,
  after?: string,
): QueryCommandInput {
  const values: Record<string, unknown> = { ":pk": `HEALTH#${health}`, ":now": Math.floor(now.getTime() / 1000) };
  const names: Record<string, string> = {};
  const filters = ["expiresAt > :now"];
  let key = "FLEETPK = :pk";
  // FLEETSK is <cluster>#<namespace>#<name>: a cluster (and its namespace) is a key prefix.
  const prefix = filter.cluster ? `${filter.cluster}#${filter.namespace ? `${filter.namespace}#` : ""}` : undefined;
  if (prefix !== undefined && after !== undefined) {
    key += " AND FLEETSK BETWEEN :after AND :last";
    values[":after"] = after;
    values[":last"] = `${prefix}\uffff`;
  } else if (prefix !== undefined) {
    key += " AND begins_with(FLEETSK, :prefix)";
    values[":prefix"] = prefix;
  } else if (after !== undefined) {
    key += " AND FLEETSK > :after";
    values[":after"] = after;
  }
  if (filter.namespace && !filter.cluster) {
    filters.push("#ns = :ns");
    names["#ns"] = "namespace";
    values[":ns"] = filter.namespace;
  }
  if (filter.clusters) {
    // No cluster wanted: a condition nothing meets (DynamoDB has no empty IN list).
    const wanted = filter.clusters.length ? filter.clusters : ["#"];
    filters.push(`#cluster IN (${wanted.map((_, i) => `:c${i}`).join(", ")})`);
    names["#cluster"] = "cluster";
    wanted.forEach((c, i) => {
      values[`:c${i}`] = c;
    });
  }
  return {
    TableName: table,
    IndexName: FLEET_INDEX.name,
    KeyConditionExpression: key,
    FilterExpression: filters.join(" AND "),
    ExpressionAttributeValues: values,
    ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
  };
}

function fleetEntryFrom(item: Item): FleetEntry {
  return {
    release: { cluster: String(item.cluster), namespace: String(item.namespace), name: String(item.name) },
    health: { overall: item.overall as FleetEntry["health"]["overall"], message: String(item.healthMessage ?? "") },
    revision: Number(item.revision),
    snapshotId: String(item.snapshotId),
    since: String(item.firstSeenAt),
    lastSeenAt: String(item.lastSeenAt),
    ...(typeof item.driftCount === "number" ? { driftCount: item.driftCount } : {}),
    ...freshnessFrom(item),
  };
}
