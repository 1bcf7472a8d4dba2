/**
 * The snapshots table (a second table beside the releases table; why: docs/history.md).
 * `init` creates it from here and infra/snapshots-table.yml mirrors it (test/history/table-schema.test.ts).
 *
 *   PK = SNAP#<cluster>#<namespace>#<name>
 *     SK = S#<runId>       a snapshot's summary (small: it is what every stable run updates)
 *     SK = B#<runId>       its body: per-resource health and key cells, the gzip status text (written once)
 *     SK = FIRST           guards the creation of a release's first snapshot
 *   PK = RUN, SK = R#<runId>   an audit run (start, end of planning; its totals once sealed)
 *   PK = RUN#<runId>, SK = SENT#<part> | DONE#<part>   one small marker per message sent / completed
 *     (the done marker is the message's idempotency record; a run's counters are their sums)
 *   PK = ROLLUP#<YYYY-MM-DD>, SK = C#<cluster>   the reliability figures of one cluster's day, ADDed to in the
 *     transaction of each message's DONE marker (rollup-items.ts); a fleet report reads one partition per day
 *   FLEET index: FLEETPK = HEALTH#<overall>#<shard>, FLEETSK = <cluster>#<namespace>#<name>, only on each
 *     release's latest snapshot: "what is Failed right now" is one Query per partition of a health (8 shards,
 *     spread so no partition takes every audit's write: dynamodb-fleet-partitions.ts), never a Scan.
 *   TTL: expiresAt (epoch seconds) on snapshots, bodies, runs and their markers (SNAPSHOT_RETENTION_DAYS).
 */
import type { CreateTableCommandInput, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { StoreLocation } from "../store/dynamodb-errors.ts";
import { ensureTable, type TableDefinition, tableInput } from "../store/table-definition.ts";

export const DEFAULT_SNAPSHOTS_TABLE = "helm-status-snapshots";
export const SNAPSHOT_TTL_ATTRIBUTE = "expiresAt";
export const FLEET_INDEX = { name: "FLEET", partitionKey: "FLEETPK", sortKey: "FLEETSK" } as const;
export const FLEET_ATTRIBUTES = [
  "cluster",
  "namespace",
  "name",
  "overall",
  "healthMessage",
  "revision",
  "snapshotId",
  "firstSeenAt",
  "lastSeenAt",
  "expiresAt",
  "driftCount",
  "freshnessState",
  "clusterRevision",
];

export const SNAPSHOTS_TABLE: TableDefinition = {
  holds: "snapshots",
  template: "infra/snapshots-table.yml",
  indexes: [{ ...FLEET_INDEX, attributes: FLEET_ATTRIBUTES }],
  ttlAttribute: SNAPSHOT_TTL_ATTRIBUTE,
};

export function createSnapshotsTableInput(tableName: string): CreateTableCommandInput {
  return tableInput(tableName, SNAPSHOTS_TABLE);
}

/** `init`: create the snapshots table and enable its TTL, idempotently. */
export async function ensureSnapshotsTable(
  client: DynamoDBClient,
  location: StoreLocation,
): Promise<{ created: boolean }> {
  const { created } = await ensureTable(client, location, SNAPSHOTS_TABLE);
  return { created };
}
