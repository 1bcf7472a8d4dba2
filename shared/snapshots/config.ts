/** Where the snapshots live (SNAPSHOTS_TABLE) and for how long (SNAPSHOT_RETENTION_DAYS), read once. */
import { createDocumentClient, type StoreConfig } from "../store/config.ts";
import { DynamoDbSnapshotStore } from "./dynamodb-snapshot-store.ts";
import { HistoryConfigError } from "./errors.ts";
import { DEFAULT_SNAPSHOTS_TABLE } from "./table-schema.ts";

export interface SnapshotsConfig {
  tableName: string;
  retentionDays: number;
}

export function snapshotsConfigFromEnv(env: Record<string, string | undefined>): SnapshotsConfig {
  const problems: string[] = [];
  const tableName = env.SNAPSHOTS_TABLE?.trim() || DEFAULT_SNAPSHOTS_TABLE;
  if (!/^[A-Za-z0-9_.-]{3,255}$/.test(tableName)) {
    problems.push(`SNAPSHOTS_TABLE ${JSON.stringify(tableName.slice(0, 300))} is not a DynamoDB table name`);
  }
  const rawDays = env.SNAPSHOT_RETENTION_DAYS?.trim();
  let retentionDays = 90;
  if (rawDays) {
    if (!/^\d{1,4}$/.test(rawDays) || Number(rawDays) < 1 || Number(rawDays) > 3650) {
      problems.push(
        `SNAPSHOT_RETENTION_DAYS=${JSON.stringify(rawDays.slice(0, 40))} must be a whole number of days in 1..3650`,
      );
    } else {
      retentionDays = Number(rawDays);
    }
  }
  if (problems.length > 0) throw new HistoryConfigError(problems.join("; "));
  return { tableName, retentionDays };
}

export function openSnapshotStore(store: StoreConfig, snapshots: SnapshotsConfig): DynamoDbSnapshotStore {
  return new DynamoDbSnapshotStore({
    client: createDocumentClient(store),
    tableName: snapshots.tableName,
    region: store.region,
    endpoint: store.endpoint,
    retentionDays: snapshots.retentionDays,
  });
}
