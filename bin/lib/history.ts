/**
 * The CLI's snapshot store: beside the releases table on the same endpoint (the
 * embedded DynamoDB Local, or the configured one), SNAPSHOTS_TABLE, created on
 * first use in the embedded engine like the releases table.
 */
import { openHistoryStores, type SnapshotsConfig, snapshotsConfigFromEnv } from "../../shared/snapshots/config.ts";
import type { HistoryStores } from "../../shared/snapshots/history-stores.ts";
import { ensureSnapshotsTable } from "../../shared/snapshots/table-schema.ts";
import { createDynamoDbClient } from "../../shared/store/config.ts";
import type { ReleaseStore } from "../../shared/store/release-store.ts";
import { type CliStoreContext, withCliStore } from "./store.ts";

export async function withCliHistory<T>(
  env: NodeJS.ProcessEnv,
  fn: (
    stores: HistoryStores & { store: ReleaseStore; retentionDays: number; settings: SnapshotsConfig },
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
    const history = openHistoryStores(context.config, settings);
    return fn({ ...history, store, retentionDays: settings.retentionDays, settings }, context);
  });
}
