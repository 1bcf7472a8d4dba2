/**
 * Replay protection across instances (#25 item 4; design in docs/chatops.md "Replays"). A signed Slack request
 * or Teams activity is answered once: its key (Slack's signature, Teams' activity id) is claimed by a conditional
 * PutItem on the releases table, `REPLAY#<sha256 of the key>` with a TTL of the replay window, refused when the
 * item exists and has not expired — whichever Lambda instance saw it first. The per-instance guard in front
 * answers a replay to the same instance without a write. The key is hashed: a signature is not stored.
 */
import { createHash } from "node:crypto";
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { onReleasesTable, type StoreConfig } from "../store/config.ts";
import type { Table } from "../store/dynamodb-table.ts";
import { ReplayGuard } from "./signature.ts";

export interface ReplayLedger {
  /** True the first time `key` is seen within the window (by any instance sharing the ledger), else false. */
  firstSeen(key: string, now: number): Promise<boolean>;
}

/** Slack's and Teams' ±5 minute windows, both ways. */
export const REPLAY_WINDOW_MS = 10 * 60_000;

/** One instance only (tests, a deployment without a table). */
export function instanceReplayLedger(windowMs = REPLAY_WINDOW_MS): ReplayLedger {
  const guard = new ReplayGuard({ windowMs });
  return { firstSeen: async (key, now) => guard.firstSeen(key, now) };
}

export function dynamoDbReplayLedger(table: Table, windowMs = REPLAY_WINDOW_MS): ReplayLedger {
  const instance = new ReplayGuard({ windowMs });
  return {
    async firstSeen(key, now) {
      if (!instance.firstSeen(key, now)) return false;
      const id = createHash("sha256").update(key).digest("base64url");
      return table.conditional(
        new PutCommand({
          TableName: table.name,
          Item: { PK: `REPLAY#${id}`, SK: "REPLAY", expiresAt: Math.ceil((now + windowMs) / 1000) },
          // An expired claim (TTL deletion lags by up to days) is a first sighting again.
          ConditionExpression: "attribute_not_exists(PK) OR expiresAt < :now",
          ExpressionAttributeValues: { ":now": Math.floor(now / 1000) },
        }),
      );
    },
  };
}

/** The releases table's ledger (its TTL attribute is `expiresAt`); the memory store's instance-only guard. */
export function replayLedgerFor(config: StoreConfig): ReplayLedger {
  return onReleasesTable<ReplayLedger>(config, instanceReplayLedger, dynamoDbReplayLedger);
}
