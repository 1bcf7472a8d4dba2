/**
 * The per-day reliability rollups in the snapshots table (docs/history.md "Rollups"): one item per cluster and
 * UTC day, PK = ROLLUP#<day>, SK = C#<cluster> (table-schema.ts), ADDed to in the transaction of each message's
 * DONE marker (dynamodb-audit-runs.ts) and read by the fleet, cluster and namespace reports.
 */

import { pool } from "../concurrency.ts";
import type { Table } from "../store/dynamodb-table.ts";
import { expired, expiresAtFor } from "./retention.ts";
import { dayStart } from "./rollup.ts";
import { isRollupAttribute, type RollupDay } from "./rollup-items.ts";
import type { RollupStore } from "./rollup-store.ts";

const ROLLUP_PREFIX = "ROLLUP#";
/** Bounds one day's Query: 1 MB pages of cluster items (a thousand clusters fit in a few). */
const ROLLUP_PAGES = 100;
/** Days queried at once: a window is up to SNAPSHOT_RETENTION_DAYS (at most 3650) days, one Query each. */
const DAYS_AT_ONCE = 16;

export class DynamoDbRollups implements RollupStore {
  readonly #t: Table;
  readonly #retentionDays: number;

  constructor(table: Table, retentionDays: number) {
    this.#t = table;
    this.#retentionDays = retentionDays;
  }

  /** One day item of a cluster, as a transaction action (DynamoDbAuditRuns, with the DONE marker): ADD of every figure the message had (names aliased: any text may be one). */
  add(rollup: RollupDay): object {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {
      ":exp": expiresAtFor(dayStart(rollup.day), this.#retentionDays + 1),
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
    await pool(
      days.map(
        (day) => () =>
          this.#t.queryAll(
            {
              TableName: this.#t.name,
              KeyConditionExpression: cluster ? "PK = :pk AND SK = :sk" : "PK = :pk AND begins_with(SK, :sk)",
              ExpressionAttributeValues: { ":pk": `${ROLLUP_PREFIX}${day}`, ":sk": cluster ? `C#${cluster}` : "C#" },
              ConsistentRead: true,
            },
            (item) => {
              if (expired({ expiresAt: Number(item.expiresAt) }, now)) return;
              const values: Record<string, number> = {};
              for (const [name, value] of Object.entries(item)) {
                if (isRollupAttribute(name) && typeof value === "number") values[name] = value;
              }
              found.push({ day, cluster: String(item.SK).slice(2), values });
            },
            ROLLUP_PAGES,
          ),
      ),
      DAYS_AT_ONCE,
    );
    return found.sort((a, b) => a.day.localeCompare(b.day) || a.cluster.localeCompare(b.cluster));
  }
}
