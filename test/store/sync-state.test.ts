/** The SyncStateStore contract on both implementations: memory, and DynamoDB Local (started once for this file). */
import { after, before } from "node:test";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { type DynamoDbLocal, startDynamoDbLocal } from "../../local/dynamodb-local.ts";
import { createDocumentClient, type StoreConfig } from "../../shared/store/config.ts";
import { Table } from "../../shared/store/dynamodb-table.ts";
import { DynamoDbSyncStateStore } from "../../shared/store/sync-state-dynamodb.ts";
import { MemorySyncStateStore } from "../../shared/store/sync-state-memory.ts";
import { ensureReleasesTable } from "../../shared/store/table-schema.ts";
import { syncStateContract } from "./sync-state-contract.ts";

const credentials = { accessKeyId: "test", secretAccessKey: "test" };
let engine: DynamoDbLocal;
let config: StoreConfig;

before(async () => {
  engine = await startDynamoDbLocal();
  config = { region: "us-east-1", endpoint: engine.endpoint, tableName: `sync-state-${process.pid}`, credentials };
  const client = new DynamoDBClient({ region: config.region, endpoint: config.endpoint, credentials });
  await ensureReleasesTable(client, config);
  client.destroy();
});
after(async () => engine?.stop());

syncStateContract("memory", async () => new MemorySyncStateStore());
syncStateContract(
  "dynamodb-local",
  async () => new DynamoDbSyncStateStore(new Table(createDocumentClient(config), config)),
);
