/** `init`: create the releases table (and enable TTL) on the configured endpoint; safe to run again. */
import { snapshotsConfigFromEnv } from "../../shared/snapshots/config.ts";
import { ensureSnapshotsTable } from "../../shared/snapshots/table-schema.ts";
import { createDynamoDbClient, storeConfigFromEnv } from "../../shared/store/config.ts";
import { describeEndpoint } from "../../shared/store/dynamodb-errors.ts";
import { ensureReleasesTable } from "../../shared/store/table-schema.ts";
import { defineCommand } from "../lib/define-command.ts";
import { withCliHistory } from "../lib/history.ts";
import { usesEmbeddedStore } from "../lib/store.ts";

const help = `usage: npm run --silent cli -- init

Creates the releases table (RELEASES_TABLE, default helm-releases) and the status-history
snapshots table (SNAPSHOTS_TABLE, default helm-status-snapshots) with their indexes
and TTL on the endpoint configured by AWS_REGION / AWS_ENDPOINT_URL_DYNAMODB, or in
the embedded DynamoDB Local (.data/dynamodb) when nothing is configured. Idempotent.
`;

export const run = defineCommand({
  help,
  options: {},
  async run(_parsed, io) {
    if (usesEmbeddedStore(io.env)) {
      // The embedded store creates the tables as it opens.
      const where = await withCliHistory(io.env, async (_stores, context) => context);
      const snapshots = snapshotsConfigFromEnv(io.env).tableName;
      io.stdout.write(
        `tables "${where.config.tableName}" and "${snapshots}" are ready in the embedded DynamoDB Local (${where.dataDir})\n`,
      );
      return 0;
    }
    const config = storeConfigFromEnv(io.env);
    const client = createDynamoDbClient(config);
    try {
      const result = await ensureReleasesTable(client, config);
      const state = result.created ? "created" : "already exists";
      io.stdout.write(`table "${result.table}" ${state} at ${describeEndpoint(config)} (region ${config.region})\n`);
      if (!result.ttlEnabled) io.stderr.write("warning: this engine does not support TTL (expiresAt)\n");
      const snapshots = snapshotsConfigFromEnv(io.env).tableName;
      const history = await ensureSnapshotsTable(client, { ...config, tableName: snapshots });
      io.stdout.write(
        `table "${snapshots}" ${history.created ? "created" : "already exists"} at ${describeEndpoint(config)}\n`,
      );
    } finally {
      client.destroy();
    }
    return 0;
  },
});
