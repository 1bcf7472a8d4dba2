/**
 * DynamoDB Local for a test file, with a releases table of its own: started (and the table created) before its
 * tests, stopped after them. For the stores that share the releases table (facts, attributions, sync state).
 */
import { after, before } from "node:test";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { type DynamoDbLocal, startDynamoDbLocal } from "../../local/dynamodb-local.ts";
import type { StoreConfig } from "../../shared/store/config.ts";
import { ensureReleasesTable } from "../../shared/store/table-schema.ts";

/** The keys DynamoDB Local takes (any will do; it checks none). */
export const LOCAL_CREDENTIALS = { accessKeyId: "test", secretAccessKey: "test" };

/** The table `<name>-<pid>` on that DynamoDB Local; the returned function gives its configuration. */
export function releasesTableForFile(name: string): () => StoreConfig {
  let engine: DynamoDbLocal | undefined;
  let config: StoreConfig | undefined;
  before(async () => {
    engine = await startDynamoDbLocal();
    const credentials = LOCAL_CREDENTIALS;
    config = { region: "us-east-1", endpoint: engine.endpoint, tableName: `${name}-${process.pid}`, credentials };
    const client = new DynamoDBClient({ region: config.region, endpoint: config.endpoint, credentials });
    try {
      await ensureReleasesTable(client, config);
    } finally {
      client.destroy();
    }
  });
  after(async () => engine?.stop());
  return () => {
    if (!config) throw new Error("DynamoDB Local is not started yet (use it inside a test or a hook)");
    return config;
  };
}
