/**
 * The DynamoDB SnapshotStore (layout in table-schema.ts). Every write is
 * conditional, so duplicate deliveries and racing workers cannot fork a history:
 * an extend requires the same digest and an older lastRunId; a create requires
 * that the previous latest is still flagged latest (or, for a first snapshot,
 * that no FIRST guard exists), in one transaction.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import type { ReleaseKey } from "../release/model.ts";
import { type StoreLocation, translateAwsError } from "../store/dynamodb-errors.ts";
import { resolveLimit } from "../store/paging.ts";
import type { Page, PageRequest } from "../store/release-store.ts";
import { AuditRunNotFoundError, SnapshotCorruptError, SnapshotNotFoundError } from "./errors.ts";
import { durationOf, fleetOrder, fleetScope, listScope } from "./memory-snapshot-store.ts";
import { type AuditRun, type FleetEntry, HEALTH_SEVERITY, parseSnapshotId, runIdFor, type Snapshot } from "./model.ts";
import { checkSnapshot, decodeScopedCursor, encodeScopedCursor, packText, unpackText } from "./snapshot-codec.ts";
import type {
  FleetFilter,
  MessageTally,
  SeenAgain,
  SnapshotQuery,
  SnapshotStore,
  WriteOutcome,
} from "./snapshot-store.ts";
import { FLEET_INDEX } from "./table-schema.ts";

type Item = Record<string, unknown>;
const HEALTH_ORDER = (Object.keys(HEALTH_SEVERITY) as (keyof typeof HEALTH_SEVERITY)[]).sort(
  (a, b) => HEALTH_SEVERITY[a] - HEALTH_SEVERITY[b],
);
const RUN_PK = "RUN";
const MAX_ROUNDS = 25;

/**
 * What the store wrote, for the bench's per-release figures: items put or updated, and the write capacity
 * units DynamoDB reported (ReturnConsumedCapacity TOTAL: indexes included, 1 unit per KB of the whole item
 * for an UpdateItem, doubled in transactions).
 */
export interface WriteStats {
  items: number;
  writeUnits: number;
}

export interface DynamoDbSnapshotStoreOptions extends StoreLocation {
  client: DynamoDBDocumentClient;
  /** How long runs are kept (TTL), in days. */
  retentionDays?: number;
}

const partitionKey = (r: ReleaseKey) => `SNAP#${r.cluster}#${r.namespace}#${r.name}`;
const position = (r: ReleaseKey) => `${r.cluster}#${r.namespace}#${r.name}`;

export class DynamoDbSnapshotStore implements SnapshotStore {
  readonly stats: WriteStats = { items: 0, writeUnits: 0 };
  readonly #db: DynamoDBDocumentClient;
  readonly #location: StoreLocation;
  readonly #table: string;
  readonly #retentionDays: number;

  constructor(options: DynamoDbSnapshotStoreOptions) {
    this.#db = options.client;
    this.#location = { tableName: options.tableName, region: options.region, endpoint: options.endpoint };
    this.#table = options.tableName;
    this.#retentionDays = options.retentionDays ?? 90;
  }

  async latest(release: ReleaseKey): Promise<Snapshot | undefined> {
    const result = await this.#send(
      new QueryCommand({
        TableName: this.#table,
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
    const update = {
      TableName: this.#table,
      Key: { PK: partitionKey(snapshot.release), SK: `S#${snapshot.runId}` },
      UpdateExpression: "SET lastSeenAt = :at, lastRunId = :run, expiresAt = :exp ADD seenCount :one",
      ConditionExpression: "digest = :digest AND lastRunId < :run AND attribute_exists(FLEETPK)",
      ExpressionAttributeValues: {
        ":at": seen.observedAt,
        ":run": seen.runId,
        ":exp": seen.expiresAt,
        ":one": 1,
        ":digest": snapshot.digest,
      },
    };
    const done = await this.#conditional(new UpdateCommand(update));
    if (done) this.stats.items += 1;
    return done ? "ok" : "conflict";
  }

  async create(next: Snapshot & { text: string }, previous?: Snapshot): Promise<WriteOutcome> {
    const pk = partitionKey(next.release);
    const { text, resources, ...summaryDoc } = next;
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
      { Put: { TableName: this.#table, Item: summary, ConditionExpression: "attribute_not_exists(PK)" } },
      { Put: { TableName: this.#table, Item: body } },
    ];
    if (previous) {
      actions.push({
        Update: {
          TableName: this.#table,
          Key: { PK: pk, SK: `S#${previous.runId}` },
          UpdateExpression: "REMOVE FLEETPK, FLEETSK",
          ConditionExpression: "attribute_exists(FLEETPK) AND lastRunId = :last",
          ExpressionAttributeValues: { ":last": previous.lastRunId },
        },
      });
    } else {
      actions.push({
        Put: {
          TableName: this.#table,
          Item: { PK: pk, SK: "FIRST", snapshotId: next.id, expiresAt: next.expiresAt },
          ConditionExpression: "attribute_not_exists(PK) OR expiresAt < :now",
          ExpressionAttributeValues: { ":now": Math.floor(Date.parse(next.firstSeenAt) / 1000) },
        },
      });
    }
    const done = await this.#conditional(new TransactWriteCommand({ TransactItems: actions as never }));
    if (done) this.stats.items += actions.length;
    return done ? "ok" : "conflict";
  }

  async get(id: string, now: Date): Promise<Snapshot> {
    const { release, runId } = parseSnapshotId(id);
    const [summaryItem, bodyItem] = await Promise.all([
      this.#get(partitionKey(release), `S#${runId}`),
      this.#get(partitionKey(release), `B#${runId}`),
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
      TableName: this.#table,
      KeyConditionExpression: start ? "PK = :pk AND SK BETWEEN :lo AND :hi" : "PK = :pk AND SK BETWEEN :lo AND :hi",
      FilterExpression: filter,
      ExpressionAttributeValues: values,
      ScanIndexForward: false,
      ConsistentRead: true,
    };
    const items = await this.#collect(input, limit + 1, (item) => !start || String(item.SK) < `S#${start}`);
    const page = items.slice(0, limit).map(summaryFrom);
    return items.length > limit
      ? { items: page, cursor: encodeScopedCursor("snapshots", scope, page.at(-1)!.runId) }
      : { items: page };
  }

  async fleet(filter: FleetFilter, now: Date): Promise<Page<FleetEntry>> {
    const limit = resolveLimit(filter.limit);
    const scope = fleetScope(filter);
    const start = filter.cursor ? decodeScopedCursor("fleet", scope, filter.cursor) : undefined;
    const healths = HEALTH_ORDER.filter((h) => !filter.health || filter.health.includes(h));
    const entries: FleetEntry[] = [];
    for (const health of healths) {
      if (start && `${HEALTH_SEVERITY[health]}#~` < start) continue;
      const values: Record<string, unknown> = { ":pk": `HEALTH#${health}`, ":now": Math.floor(now.getTime() / 1000) };
      let key = "FLEETPK = :pk";
      if (filter.cluster) {
        key += " AND begins_with(FLEETSK, :cluster)";
        values[":cluster"] = `${filter.cluster}#`;
      }
      const items = await this.#collect(
        {
          TableName: this.#table,
          IndexName: FLEET_INDEX.name,
          KeyConditionExpression: key,
          FilterExpression: "expiresAt > :now",
          ExpressionAttributeValues: values,
        },
        limit + 1 - entries.length,
        (item) => !start || `${HEALTH_SEVERITY[health]}#${item.FLEETSK}` > start,
      );
      entries.push(...items.map(fleetEntryFrom));
      if (entries.length > limit) break;
    }
    const items = entries.slice(0, limit);
    return entries.length > limit
      ? { items, cursor: encodeScopedCursor("fleet", scope, fleetOrder(items.at(-1)!)) }
      : { items };
  }

  async startRun(runId: string, startedAt: string): Promise<AuditRun & { sentParts: string[] }> {
    const expiresAt = Math.floor(Date.parse(startedAt) / 1000) + this.#retentionDays * 86_400;
    const item = {
      PK: RUN_PK,
      SK: `R#${runId}`,
      runId,
      startedAt,
      planned: 0,
      messages: 0,
      done: 0,
      failed: 0,
      unhealthy: 0,
      changed: 0,
      expiresAt,
    };
    if (
      await this.#conditional(
        new PutCommand({ TableName: this.#table, Item: item, ConditionExpression: "attribute_not_exists(PK)" }),
      )
    ) {
      this.stats.items += 1;
    }
    const stored = await this.#get(RUN_PK, `R#${runId}`);
    return { ...runFrom(stored!), sentParts: [...((stored!.sentParts as Set<string> | undefined) ?? [])] };
  }

  async recordSent(runId: string, parts: { id: string; releases: number; cluster: string }[]): Promise<void> {
    for (const part of parts) {
      const done = await this.#conditional(
        new UpdateCommand({
          TableName: this.#table,
          Key: { PK: RUN_PK, SK: `R#${runId}` },
          UpdateExpression: "ADD sentParts :part, planned :n, messages :one, clusterSet :cluster",
          ConditionExpression: "attribute_exists(PK) AND NOT contains(sentParts, :id)",
          ExpressionAttributeValues: {
            ":part": new Set([part.id]),
            ":id": part.id,
            ":n": part.releases,
            ":one": 1,
            ":cluster": new Set([part.cluster]),
          },
        }),
      );
      if (done) this.stats.items += 1;
    }
  }

  async finishPlanning(runId: string, plannedAt: string): Promise<void> {
    await this.#conditional(
      new UpdateCommand({
        TableName: this.#table,
        Key: { PK: RUN_PK, SK: `R#${runId}` },
        UpdateExpression: "SET plannedAt = :at",
        ConditionExpression: "attribute_exists(PK) AND attribute_not_exists(plannedAt)",
        ExpressionAttributeValues: { ":at": plannedAt },
      }),
    );
  }

  async completeMessage(runId: string, partId: string, tally: MessageTally, at: string): Promise<boolean> {
    const done = await this.#conditional(
      new UpdateCommand({
        TableName: this.#table,
        Key: { PK: RUN_PK, SK: `R#${runId}` },
        UpdateExpression: "ADD doneParts :part, done :d, failed :f, unhealthy :u, changed :c SET lastDoneAt = :at",
        ConditionExpression: "attribute_exists(PK) AND NOT contains(doneParts, :id)",
        ExpressionAttributeValues: {
          ":part": new Set([partId]),
          ":id": partId,
          ":d": tally.done,
          ":f": tally.failed,
          ":u": tally.unhealthy,
          ":c": tally.changed,
          ":at": at,
        },
      }),
    );
    if (done) this.stats.items += 1;
    return done;
  }

  async getRun(runId: string): Promise<AuditRun> {
    const item = await this.#get(RUN_PK, `R#${runId}`);
    if (!item) throw new AuditRunNotFoundError(runId);
    return runFrom(item);
  }

  async listRuns(page: PageRequest): Promise<Page<AuditRun>> {
    const limit = resolveLimit(page.limit);
    const start = page.cursor ? decodeScopedCursor("audits", "", page.cursor) : undefined;
    const result = await this.#send(
      new QueryCommand({
        TableName: this.#table,
        KeyConditionExpression: start ? "PK = :pk AND SK < :start" : "PK = :pk AND begins_with(SK, :r)",
        ExpressionAttributeValues: start ? { ":pk": RUN_PK, ":start": `R#${start}` } : { ":pk": RUN_PK, ":r": "R#" },
        ProjectionExpression:
          "runId, startedAt, plannedAt, planned, clusterSet, messages, done, failed, unhealthy, changed, lastDoneAt",
        ScanIndexForward: false,
        Limit: limit + 1,
      }),
    );
    const runs = ((result.Items ?? []) as Item[]).map(runFrom);
    const items = runs.slice(0, limit);
    return runs.length > limit ? { items, cursor: encodeScopedCursor("audits", "", items.at(-1)!.runId) } : { items };
  }

  async claimNotification(id: string, now: Date, staleMs = 300_000): Promise<boolean> {
    const { release, runId } = parseSnapshotId(id);
    return this.#conditional(
      new UpdateCommand({
        TableName: this.#table,
        Key: { PK: partitionKey(release), SK: `S#${runId}` },
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
    const { release, runId } = parseSnapshotId(id);
    await this.#send(
      new UpdateCommand({
        TableName: this.#table,
        Key: { PK: partitionKey(release), SK: `S#${runId}` },
        UpdateExpression: "SET notifyState = :state, notifyAt = :now",
        ExpressionAttributeValues: { ":state": outcome, ":now": now.getTime() },
      }),
    );
  }

  async #collect(input: QueryCommandInput, want: number, keep: (item: Item) => boolean): Promise<Item[]> {
    const items: Item[] = [];
    let startKey: Record<string, unknown> | undefined;
    for (let round = 0; round < MAX_ROUNDS && items.length < want; round++) {
      const result = await this.#send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
      items.push(...((result.Items ?? []) as Item[]).filter(keep));
      startKey = result.LastEvaluatedKey;
      if (!startKey) break;
    }
    return items.slice(0, want);
  }

  async #get(pk: string, sk: string): Promise<Item | undefined> {
    const result = await this.#send(
      new GetCommand({ TableName: this.#table, Key: { PK: pk, SK: sk }, ConsistentRead: true }),
    );
    return result.Item as Item | undefined;
  }

  /** True when written, false when the condition failed. */
  async #conditional(command: object): Promise<boolean> {
    try {
      await this.#send(command);
      return true;
    } catch (error) {
      const name = (error as { name?: string }).name;
      const cause = (error as { cause?: { name?: string } }).cause?.name;
      if ([name, cause].some((n) => n === "ConditionalCheckFailedException" || n === "TransactionCanceledException")) {
        return false;
      }
      throw error;
    }
  }

  // biome-ignore lint/suspicious/noExplicitAny: each command has its own output type
  async #send(command: object): Promise<any> {
    const input = (command as { input?: Record<string, unknown> }).input;
    const isWrite =
      command instanceof PutCommand || command instanceof UpdateCommand || command instanceof TransactWriteCommand;
    if (input && isWrite) input.ReturnConsumedCapacity = "TOTAL";
    try {
      const result = await this.#db.send(command as never);
      if (isWrite) {
        const consumed = (result as { ConsumedCapacity?: unknown }).ConsumedCapacity ?? [];
        for (const used of [consumed].flat() as { CapacityUnits?: number }[])
          this.stats.writeUnits += used?.CapacityUnits ?? 0;
      }
      return result;
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (name === "ConditionalCheckFailedException" || name === "TransactionCanceledException") throw error;
      throw translateAwsError(error, this.#location);
    }
  }
}

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
  };
  return checkSnapshot(id, snapshot);
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

function fleetEntryFrom(item: Item): FleetEntry {
  return {
    release: { cluster: String(item.cluster), namespace: String(item.namespace), name: String(item.name) },
    health: { overall: item.overall as FleetEntry["health"]["overall"], message: String(item.healthMessage ?? "") },
    revision: Number(item.revision),
    snapshotId: String(item.snapshotId),
    since: String(item.firstSeenAt),
    lastSeenAt: String(item.lastSeenAt),
  };
}

function runFrom(item: Item): AuditRun {
  const run: AuditRun = {
    runId: String(item.runId),
    startedAt: String(item.startedAt),
    planned: Number(item.planned ?? 0),
    clusters: [...((item.clusterSet as Set<string> | undefined) ?? [])].sort(),
    messages: Number(item.messages ?? 0),
    done: Number(item.done ?? 0),
    failed: Number(item.failed ?? 0),
    unhealthy: Number(item.unhealthy ?? 0),
    changed: Number(item.changed ?? 0),
  };
  if (item.plannedAt) run.plannedAt = String(item.plannedAt);
  if (item.lastDoneAt) run.lastDoneAt = String(item.lastDoneAt);
  const duration = durationOf(run);
  if (duration !== undefined) run.durationMs = duration;
  return run;
}
