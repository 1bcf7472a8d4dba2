/**
 * Audit runs in the snapshots table, without a hot growing item:
 *   PK = RUN, SK = R#<runId>             the run: startedAt, plannedAt, expiresAt (written by the planner only),
 *                                        and once every sent part is done, its sealed totals;
 *   PK = RUN#<runId>, SK = SENT#<part>   one per message sent (releases, cluster): a retried planner resumes;
 *   PK = RUN#<runId>, SK = DONE#<part>   one per message completed (its tally), a conditional put: the marker
 *                                        is the idempotency record, so a redelivered message adds nothing.
 * A run's counters are the sums of its markers (one Query of its own partition; a DONE marker counts only with
 * its SENT marker: a message the planner did not send adds nothing), so no worker writes the run item
 * and no write is billed on more than its own ~0.2 KB; a run whose every part is done is sealed (its totals
 * written onto the run item once), so listing old runs reads one item each.
 */
import { PutCommand, QueryCommand, UpdateCommand, type UpdateCommandInput } from "@aws-sdk/lib-dynamodb";
import type { Clock } from "../ports.ts";
import { backoffDelay, sleep } from "../retry.ts";
import type { Item, Table } from "../store/dynamodb-table.ts";
import { StoreUnavailableError } from "../store/errors.ts";
import { resolveLimit } from "../store/paging.ts";
import type { Page, PageRequest } from "../store/release-store.ts";
import type { AuditRunStore, MessageTally, SentPart } from "./audit-run-store.ts";
import type { DynamoDbRollups } from "./dynamodb-rollups.ts";
import { AuditRunNotFoundError } from "./errors.ts";
import type { AuditRun } from "./model.ts";
import { expiresAtFor } from "./retention.ts";
import type { RollupDay } from "./rollup-items.ts";
import { decodeScopedCursor, encodeScopedCursor } from "./snapshot-codec.ts";
import { durationOf } from "./store-rules.ts";

const RUN_PK = "RUN";
const partsKey = (runId: string) => `RUN#${runId}`;
/** Bounds the marker pages: a run of 100,000 parts' markers is a few 1 MB pages. */
const MAX_MARKER_PAGES = 50;
const CONFLICT_RETRY = { maxAttempts: 8, baseMs: 50, capMs: 2_000 };
/** DynamoDB's limit of actions per TransactWriteItems. */
const MAX_TRANSACTION = 100;

interface Markers {
  sent: { part: string; releases: number; cluster: string }[];
  done: (MessageTally & { at: string; part: string })[];
}

export class DynamoDbAuditRuns implements AuditRunStore {
  readonly #t: Table;
  readonly #retentionDays: number;
  readonly #clock: Clock;
  /** The day items a message's rollups are added to, in the transaction of its DONE marker. */
  readonly #rollups: DynamoDbRollups;

  constructor(table: Table, rollups: DynamoDbRollups, retentionDays: number, clock: Clock) {
    this.#t = table;
    this.#rollups = rollups;
    this.#retentionDays = retentionDays;
    this.#clock = clock;
  }

  #expiresAt(at: number): number {
    return expiresAtFor(at, this.#retentionDays);
  }

  async startRun(runId: string, startedAt: string): Promise<AuditRun & { sentParts: string[] }> {
    const item = { PK: RUN_PK, SK: `R#${runId}`, runId, startedAt, expiresAt: this.#expiresAt(Date.parse(startedAt)) };
    const created = await this.#t.conditional(
      new PutCommand({ TableName: this.#t.name, Item: item, ConditionExpression: "attribute_not_exists(PK)" }),
    );
    if (created) {
      this.#t.stats.items += 1;
      return { ...runFrom(item, totalsOf({ sent: [], done: [] })), sentParts: [] };
    }
    const stored = await this.#t.get(RUN_PK, `R#${runId}`);
    const markers = await this.#markers(runId);
    return { ...runFrom(stored!, totalsOf(markers)), sentParts: markers.sent.map((s) => s.part) };
  }

  /** One small marker per part (BatchWriteItem): writing a marker twice (a resumed planner) writes the same item. */
  async recordSent(runId: string, parts: SentPart[]): Promise<void> {
    // The run's own TTL is from its start; a marker outliving it by the planning time is harmless.
    const expiresAt = this.#expiresAt(this.#clock.now().getTime());
    const pending: object[] = parts.map((part) => ({
      PutRequest: {
        Item: {
          PK: partsKey(runId),
          SK: `SENT#${part.id}`,
          releases: part.releases,
          cluster: part.cluster,
          expiresAt,
        },
      },
    }));
    await this.#t.batchWrite(pending);
  }

  async finishPlanning(runId: string, plannedAt: string): Promise<void> {
    await this.#t.conditional(
      new UpdateCommand({
        TableName: this.#t.name,
        Key: { PK: RUN_PK, SK: `R#${runId}` },
        UpdateExpression: "SET plannedAt = :at",
        ConditionExpression: "attribute_exists(PK) AND attribute_not_exists(plannedAt)",
        ExpressionAttributeValues: { ":at": plannedAt },
      }),
    );
  }

  /**
   * The DONE marker, and with it (one transaction) the message's other writes (its rollup adds): all or nothing,
   * so a redelivered message, whose marker exists, adds nothing twice. Transactions touching the same rollup item
   * at once conflict: retried, boundedly (the message is redelivered past that).
   */
  async completeMessage(
    runId: string,
    partId: string,
    tally: MessageTally,
    at: string,
    rollups: readonly RollupDay[] = [],
  ): Promise<boolean> {
    const withIt = rollups.map((r) => this.#rollups.add(r));
    const marker = {
      TableName: this.#t.name,
      Item: { PK: partsKey(runId), SK: `DONE#${partId}`, ...tally, at, expiresAt: this.#expiresAt(Date.parse(at)) },
      ConditionExpression: "attribute_not_exists(PK)",
    };
    if (withIt.length === 0) {
      const done = await this.#t.conditional(new PutCommand(marker));
      if (done) this.#t.stats.items += 1;
      return done;
    }
    // A transaction holds 100 actions; a message touching more days (100 releases recovering from incidents begun
    // on as many days) writes the rest after it, once the marker is written: at most once, not exactly once.
    const [inTransaction, after] = [withIt.slice(0, MAX_TRANSACTION - 1), withIt.slice(MAX_TRANSACTION - 1)];
    for (let attempt = 1; attempt <= CONFLICT_RETRY.maxAttempts; attempt++) {
      const reasons = await this.#t.transact([{ Put: marker }, ...inTransaction]);
      if (!reasons) {
        this.#t.stats.items += 1 + inTransaction.length;
        for (const action of after as { Update: UpdateCommandInput }[]) {
          await this.#t.send(new UpdateCommand(action.Update));
          this.#t.stats.items += 1;
        }
        return true;
      }
      if (reasons[0] === "ConditionalCheckFailed") return false;
      if (!reasons.includes("TransactionConflict")) {
        throw new StoreUnavailableError(`completing an audit message failed: ${reasons.join(", ")}`);
      }
      await sleep(backoffDelay(attempt, CONFLICT_RETRY));
    }
    throw new StoreUnavailableError(
      `completing an audit message conflicted ${CONFLICT_RETRY.maxAttempts} times (its rollup items are busy)`,
      "StoreThrottled",
    );
  }

  async getRun(runId: string): Promise<AuditRun> {
    const item = await this.#t.get(RUN_PK, `R#${runId}`);
    if (!item) throw new AuditRunNotFoundError(runId);
    return this.#resolve(item);
  }

  async listRuns(page: PageRequest): Promise<Page<AuditRun>> {
    const limit = resolveLimit(page.limit);
    const start = page.cursor ? decodeScopedCursor("audits", "", page.cursor) : undefined;
    const result = await this.#t.send(
      new QueryCommand({
        TableName: this.#t.name,
        KeyConditionExpression: start ? "PK = :pk AND SK < :start" : "PK = :pk AND begins_with(SK, :r)",
        ExpressionAttributeValues: start ? { ":pk": RUN_PK, ":start": `R#${start}` } : { ":pk": RUN_PK, ":r": "R#" },
        ScanIndexForward: false,
        Limit: limit + 1,
      }),
    );
    const found = (result.Items ?? []) as Item[];
    const items = await Promise.all(found.slice(0, limit).map((item) => this.#resolve(item)));
    return found.length > limit ? { items, cursor: encodeScopedCursor("audits", "", items.at(-1)!.runId) } : { items };
  }

  /** A sealed run as stored; any other from its markers, sealed on the way once every sent part is done. */
  async #resolve(item: Item): Promise<AuditRun> {
    if (item.sealed) return runFrom(item, item as unknown as Totals);
    // A run recorded before the markers (counters and part-id sets on this item): its counters as they are.
    if (item.sentParts !== undefined || item.doneParts !== undefined) {
      const legacy = { ...item, clusters: [...((item.clusterSet as Set<string> | undefined) ?? [])] };
      return runFrom(item, legacy as unknown as Totals);
    }
    const runId = String(item.runId);
    const markers = await this.#markers(runId);
    const totals = totalsOf(markers);
    if (item.plannedAt && countedDone(markers).length >= markers.sent.length) {
      // Final: planning is over and every sent part has its marker; a later redelivery writes no marker.
      // Best effort: the API's role only reads (the planner, reading the newest runs every slot, seals them),
      // and an unsealed run reads the same, from its markers.
      await this.#t
        .conditional(
          new UpdateCommand({
            TableName: this.#t.name,
            Key: { PK: RUN_PK, SK: `R#${runId}` },
            // Every name aliased: several (clusters, ...) are DynamoDB reserved words.
            UpdateExpression: `SET ${SEALED_FIELDS.map((f) => `#${f} = :${f}`).join(", ")}`,
            ExpressionAttributeNames: Object.fromEntries(SEALED_FIELDS.map((f) => [`#${f}`, f])),
            ConditionExpression: "attribute_exists(PK) AND attribute_not_exists(sealed)",
            ExpressionAttributeValues: Object.fromEntries(
              SEALED_FIELDS.map((f) => [`:${f}`, f === "sealed" ? true : (totals[f] ?? "")]),
            ),
          }),
        )
        .catch(() => false);
    }
    return runFrom(item, totals);
  }

  async #markers(runId: string): Promise<Markers> {
    const markers: Markers = { sent: [], done: [] };
    const query = {
      TableName: this.#t.name,
      KeyConditionExpression: "PK = :pk",
      ExpressionAttributeValues: { ":pk": partsKey(runId) },
      ConsistentRead: true,
    };
    await this.#t.queryAll(
      query,
      (marker) => {
        const sk = String(marker.SK);
        if (sk.startsWith("SENT#")) {
          markers.sent.push({ part: sk.slice(5), releases: Number(marker.releases), cluster: String(marker.cluster) });
        } else if (sk.startsWith("DONE#")) {
          markers.done.push({
            done: Number(marker.done),
            failed: Number(marker.failed),
            unhealthy: Number(marker.unhealthy),
            changed: Number(marker.changed),
            at: String(marker.at),
            part: sk.slice(5),
          });
        }
      },
      MAX_MARKER_PAGES,
    );
    return markers;
  }
}

const SEALED_FIELDS = [
  "sealed",
  "planned",
  "messages",
  "clusters",
  "done",
  "failed",
  "unhealthy",
  "changed",
  "lastDoneAt",
] as const;

type Totals = Pick<AuditRun, "planned" | "messages" | "clusters" | "done" | "failed" | "unhealthy" | "changed"> & {
  lastDoneAt?: string;
};

/** The done markers of parts the planner sent: a message it did not send is not counted into its run. */
function countedDone(markers: Markers): Markers["done"] {
  const sent = new Set(markers.sent.map((s) => s.part));
  return markers.done.filter((d) => sent.has(d.part));
}

function totalsOf(markers: Markers): Totals {
  const done = countedDone(markers);
  const sum = (key: keyof MessageTally) => done.reduce((n, d) => n + d[key], 0);
  const lastDoneAt = done
    .map((d) => d.at)
    .sort()
    .at(-1);
  const totals: Totals = {
    planned: markers.sent.reduce((n, s) => n + s.releases, 0),
    messages: markers.sent.length,
    clusters: [...new Set(markers.sent.map((s) => s.cluster))].sort(),
    done: sum("done"),
    failed: sum("failed"),
    unhealthy: sum("unhealthy"),
    changed: sum("changed"),
  };
  if (lastDoneAt) totals.lastDoneAt = lastDoneAt;
  return totals;
}

function runFrom(item: Item, totals: Totals): AuditRun {
  const run: AuditRun = {
    runId: String(item.runId),
    startedAt: String(item.startedAt),
    planned: Number(totals.planned),
    clusters: [...(totals.clusters ?? [])].sort(),
    messages: Number(totals.messages),
    done: Number(totals.done),
    failed: Number(totals.failed),
    unhealthy: Number(totals.unhealthy),
    changed: Number(totals.changed),
  };
  if (item.plannedAt) run.plannedAt = String(item.plannedAt);
  if (totals.lastDoneAt) run.lastDoneAt = String(totals.lastDoneAt);
  const duration = durationOf(run);
  if (duration !== undefined) run.durationMs = duration;
  return run;
}
