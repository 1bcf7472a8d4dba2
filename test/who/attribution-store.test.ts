/** The AttributionStore contract on both implementations: memory, and DynamoDB Local (started once for this file). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createDocumentClient } from "../../shared/store/config.ts";
import { Table } from "../../shared/store/dynamodb-table.ts";
import { TTL_ATTRIBUTE } from "../../shared/store/table-schema.ts";
import { ATTRIBUTION_RETENTION_DAYS } from "../../shared/who/attribution.ts";
import { openAttributionStore } from "../../shared/who/config.ts";
import { DynamoDbAttributionStore } from "../../shared/who/dynamodb-attribution-store.ts";
import { MemoryAttributionStore } from "../../shared/who/memory-attribution-store.ts";
import { LOCAL_CREDENTIALS, releasesTableForFile } from "../support/dynamo-table.ts";
import { attributionStoreContract, revision } from "./attribution-store-contract.ts";

const credentials = LOCAL_CREDENTIALS;
const config = releasesTableForFile("attributions");

attributionStoreContract("memory", async (clock) => new MemoryAttributionStore(clock));
attributionStoreContract(
  "dynamodb-local",
  async (clock) => new DynamoDbAttributionStore(new Table(createDocumentClient(config()), config()), clock),
);

test("dynamodb: a settled attribution carries the releases table's TTL attribute, a pending one none", async () => {
  const table = new Table(createDocumentClient(config()), config());
  const store = new DynamoDbAttributionStore(table);
  const cluster = `ttl-${process.pid}`;
  const T0 = new Date("2026-12-04T10:00:00.000Z");
  await store.enqueue([revision(cluster, "web", 1), revision(cluster, "web", 2)], T0);
  const [first] = await store.due(cluster, T0, 1);
  await store.settle([{ ...first, state: "not-found", attempts: 1, nextAttemptAt: undefined, reason: "none" }]);
  const settled = await table.get(`WHO#${cluster}#shop#web`, first.key);
  assert.equal(settled?.[TTL_ATTRIBUTE], T0.getTime() / 1000 + ATTRIBUTION_RETENTION_DAYS * 86_400);
  const pending = await table.get(`WHO#${cluster}#shop#web`, "rev#shop#web#2");
  assert.equal(pending?.[TTL_ATTRIBUTE], undefined);
});

test("openAttributionStore follows the one STORE_DRIVER", () => {
  assert.ok(
    openAttributionStore({ driver: "memory", region: "us-east-1", tableName: "x" }) instanceof MemoryAttributionStore,
  );
  const dynamo = { region: "us-east-1", endpoint: "http://127.0.0.1:1", tableName: "helm-releases", credentials };
  assert.ok(openAttributionStore(dynamo) instanceof DynamoDbAttributionStore);
});
