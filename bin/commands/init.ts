/** `init`: create the releases table (and enable TTL) on the configured endpoint; safe to run again. */
import { createDynamoDbClient, storeConfigFromEnv } from "../../shared/store/config.ts";
import { describeEndpoint } from "../../shared/store/dynamodb-errors.ts";
import { ensureReleasesTable } from "../../shared/store/init-table.ts";
import { defineCommand } from "../lib/define-command.ts";
import { usesEmbeddedStore, withCliStore } from "../lib/store.ts";

const help = `usage: npm run --silent cli -- init

Creates the releases table (RELEASES_TABLE, default helm-releases) with its indexes
and TTL on the endpoint configured by AWS_REGION / AWS_ENDPOINT_URL_DYNAMODB, or in
the embedded DynamoDB Local (.data/dynamodb) when nothing is configured. Idempotent.
`;

export const run = defineCommand({
  help,
  options: {},
  async run(_parsed, io) {
    if (usesEmbeddedStore(io.env)) {
      // The embedded store creates the table as it opens.
      const where = await withCliStore(io.env, async (_store, context) => context);
      io.stdout.write(`table "${where.config.tableName}" is ready in the embedded DynamoDB Local (${where.dataDir})\n`);
      return 0;
    }
    const config = storeConfigFromEnv(io.env);
    const client = createDynamoDbClient(config);
    try {
      const result = await ensureReleasesTable(client, config);
      const state = result.created ? "created" : "already exists";
      io.stdout.write(`table "${result.table}" ${state} at ${describeEndpoint(config)} (region ${config.region})\n`);
      if (!result.ttlEnabled) io.stderr.write("warning: this engine does not support TTL (expiresAt)\n");
    } finally {
      client.destroy();
    }
    return 0;
  },
});
