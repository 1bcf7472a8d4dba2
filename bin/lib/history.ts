/**
 * The CLI's snapshot store: beside the releases table on the same endpoint (the
 * embedded DynamoDB Local, or the configured one), SNAPSHOTS_TABLE, created on
 * first use in the embedded engine like the releases table.
 */
import { openSnapshotStore, type SnapshotsConfig, snapshotsConfigFromEnv } from "../../shared/snapshots/config.ts";
import type { SnapshotStore } from "../../shared/snapshots/snapshot-store.ts";
import { ensureSnapshotsTable } from "../../shared/snapshots/table-schema.ts";
import { createDynamoDbClient } from "../../shared/store/config.ts";
import type { ReleaseStore } from "../../shared/store/release-store.ts";
import { type CliStoreContext, withCliStore } from "./store.ts";

export async function withCliHistory<T>(
  env: NodeJS.ProcessEnv,
  fn: (
    stores: { store: ReleaseStore; snapshots: SnapshotStore; retentionDays: number; settings: SnapshotsConfig },
    context: CliStoreContext,
  ) => Promise<T>,
): Promise<T> {
  const settings = snapshotsConfigFromEnv(env);
  return withCliStore(env, async (store, context) => {
    if (context.embedded) {
      const client = createDynamoDbClient(context.config);
      try {
        await ensureSnapshotsTable(client, { ...context.config, tableName: settings.tableName });
      } finally {
        client.destroy();
      }
    }
    const snapshots = openSnapshotStore(context.config, settings);
    return fn({ store, snapshots, retentionDays: settings.retentionDays, settings }, context);
  });
}
