/**
 * The DynamoDB notification claims and SLO states, in the snapshots table (table-schema.ts): a claim is two
 * attributes of the snapshot's own summary item (notifyState, notifyAt), an SLO state one item in the release's
 * partition outside the S# range every snapshot listing reads. Both are conditional writes.
 */
import { PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { ReleaseKey } from "../release/model.ts";
import type { Table } from "../store/dynamodb-table.ts";
import { snapshotPartitionKey } from "./dynamodb-snapshot-items.ts";
import { parseSnapshotId } from "./model.ts";
import { type NotificationClaims, STALE_CLAIM_MS } from "./notification-claims.ts";
import { expired } from "./retention.ts";
import type { SloStateStore } from "./slo-state-store.ts";
import type { WriteOutcome } from "./snapshot-store.ts";

/** A release's SLO burn state item, beside its snapshots (outside the S# range every listing reads). */
const SLO_STATE = "SLOSTATE";

export class DynamoDbNotificationClaims implements NotificationClaims {
  readonly #t: Table;

  constructor(table: Table) {
    this.#t = table;
  }

  async claimNotification(id: string, now: Date, staleMs = STALE_CLAIM_MS): Promise<boolean> {
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
    return { TableName: this.#t.name, Key: { PK: snapshotPartitionKey(release), SK: `S#${runId}` } };
  }
}

export class DynamoDbSloStates implements SloStateStore {
  readonly #t: Table;

  constructor(table: Table) {
    this.#t = table;
  }

  async sloState(release: ReleaseKey, now: Date): Promise<string | undefined> {
    const item = await this.#t.get(snapshotPartitionKey(release), SLO_STATE);
    return item && !expired({ expiresAt: Number(item.expiresAt) }, now) ? String(item.sloState) : undefined;
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
        Item: { PK: snapshotPartitionKey(release), SK: SLO_STATE, sloState: to, at: at.toISOString(), expiresAt },
        ConditionExpression: condition.ConditionExpression,
        ExpressionAttributeValues: { ":now": Math.floor(at.getTime() / 1000), ...condition.values },
      }),
    );
    if (done) this.#t.stats.items += 1;
    return done ? "ok" : "conflict";
  }
}
