/**
 * Audit runs in the snapshots table (`PK = RUN`, `SK = R#<runId>`): the planner's record of what it sent
 * (part ids, so a retried planner resumes instead of planning twice) and the workers' per-message tallies
 * (done part ids, so a redelivered message is counted once). Every write is conditional on those sets.
 */
import { PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { resolveLimit } from "../store/paging.ts";
import type { Page, PageRequest } from "../store/release-store.ts";
import type { Item, SnapshotTable } from "./dynamodb-snapshot-table.ts";
import { AuditRunNotFoundError } from "./errors.ts";
import type { AuditRun } from "./model.ts";
import { decodeScopedCursor, encodeScopedCursor } from "./snapshot-codec.ts";
import type { MessageTally } from "./snapshot-store.ts";
import { durationOf } from "./store-rules.ts";

const RUN_PK = "RUN";

export class DynamoDbAuditRuns {
  readonly #t: SnapshotTable;
  readonly #retentionDays: number;

  constructor(table: SnapshotTable, retentionDays: number) {
    this.#t = table;
    this.#retentionDays = retentionDays;
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
      await this.#t.conditional(
        new PutCommand({ TableName: this.#t.name, Item: item, ConditionExpression: "attribute_not_exists(PK)" }),
      )
    ) {
      this.#t.stats.items += 1;
    }
    const stored = await this.#t.get(RUN_PK, `R#${runId}`);
    return { ...runFrom(stored!), sentParts: [...((stored!.sentParts as Set<string> | undefined) ?? [])] };
  }

  async recordSent(runId: string, parts: { id: string; releases: number; cluster: string }[]): Promise<void> {
    for (const part of parts) {
      const done = await this.#t.conditional(
        new UpdateCommand({
          TableName: this.#t.name,
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
      if (done) this.#t.stats.items += 1;
    }
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

  async completeMessage(runId: string, partId: string, tally: MessageTally, at: string): Promise<boolean> {
    const done = await this.#t.conditional(
      new UpdateCommand({
        TableName: this.#t.name,
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
    if (done) this.#t.stats.items += 1;
    return done;
  }

  async getRun(runId: string): Promise<AuditRun> {
    const item = await this.#t.get(RUN_PK, `R#${runId}`);
    if (!item) throw new AuditRunNotFoundError(runId);
    return runFrom(item);
  }

  async listRuns(page: PageRequest): Promise<Page<AuditRun>> {
    const limit = resolveLimit(page.limit);
    const start = page.cursor ? decodeScopedCursor("audits", "", page.cursor) : undefined;
    const result = await this.#t.send(
      new QueryCommand({
        TableName: this.#t.name,
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
