/** The AttributionStore contract on both implementations: memory, and DynamoDB Local (started once for this file). */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { type DynamoDbLocal, startDynamoDbLocal } from "../../local/dynamodb-local.ts";
import { createDocumentClient, type StoreConfig } from "../../shared/store/config.ts";
import { Table } from "../../shared/store/dynamodb-table.ts";
import { ensureReleasesTable } from "../../shared/store/table-schema.ts";
import { openAttributionStore } from "../../shared/who/config.ts";
import { DynamoDbAttributionStore } from "../../shared/who/dynamodb-attribution-store.ts";
import { MemoryAttributionStore } from "../../shared/who/memory-attribution-store.ts";
import { attributionStoreContract } from "./attribution-store-contract.ts";

const credentials = { accessKeyId: "test", secretAccessKey: "test" };
let engine: DynamoDbLocal;
let config: StoreConfig;

before(async () => {
  engine = await startDynamoDbLocal();
  config = { region: "us-east-1", endpoint: engine.endpoint, tableName: `attributions-${process.pid}`, credentials };
  const client = new DynamoDBClient({ region: config.region, endpoint: config.endpoint, credentials });
  await ensureReleasesTable(client, config);
  client.destroy();
});
after(async () => engine?.stop());

attributionStoreContract("memory", async () => new MemoryAttributionStore());
attributionStoreContract(
  "dynamodb-local",
  async () => new DynamoDbAttributionStore(new Table(createDocumentClient(config), config)),
);

test("openAttributionStore follows the one STORE_DRIVER", () => {
  assert.ok(
    openAttributionStore({ driver: "memory", region: "us-east-1", tableName: "x" }) instanceof MemoryAttributionStore,
  );
  const dynamo = { region: "us-east-1", endpoint: "http://127.0.0.1:1", tableName: "helm-releases", credentials };
  assert.ok(openAttributionStore(dynamo) instanceof DynamoDbAttributionStore);
});
