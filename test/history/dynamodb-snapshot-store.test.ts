/** The SnapshotStore contract on DynamoDB Local, plus what only the real engine shows (item counts, TTL, table shape). */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { DescribeTimeToLiveCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { type DynamoDbLocal, startDynamoDbLocal } from "../../local/dynamodb-local.ts";
import { DynamoDbSnapshotStore } from "../../shared/history/dynamodb-snapshot-store.ts";
import { ensureSnapshotsTable } from "../../shared/history/init-table.ts";
import { parseSnapshotId } from "../../shared/history/model.ts";
import { recordObservation } from "../../shared/history/record.ts";
import { createDocumentClient } from "../../shared/store/config.ts";
import { snapshotStoreContract } from "./contract.ts";
import { observe, run, uniqueRelease } from "./fixtures.ts";

const credentials = { accessKeyId: "test", secretAccessKey: "test" };
let engine: DynamoDbLocal;
const tableName = `snapshots-${process.pid}`;

before(async () => {
  engine = await startDynamoDbLocal();
  const client = new DynamoDBClient({ region: "us-east-1", endpoint: engine.endpoint, credentials });
  await ensureSnapshotsTable(client, { tableName, region: "us-east-1", endpoint: engine.endpoint });
  // Idempotent: a second init finds the table and its index.
  assert.deepEqual(await ensureSnapshotsTable(client, { tableName, region: "us-east-1", endpoint: engine.endpoint }), {
    created: false,
  });
  client.destroy();
});
after(async () => {
  await engine?.stop();
});

const db = () => createDocumentClient({ region: "us-east-1", endpoint: engine.endpoint, tableName, credentials });
const open = () =>
  new DynamoDbSnapshotStore({ client: db(), tableName, region: "us-east-1", endpoint: engine.endpoint });

snapshotStoreContract("dynamodb-local", async () => open(), {
  corrupt: async (_store, id) => {
    const { release, runId } = parseSnapshotId(id);
    await db().send(
      new UpdateCommand({
        TableName: tableName,
        Key: { PK: `SNAP#${release.cluster}#${release.namespace}#${release.name}`, SK: `S#${runId}` },
        UpdateExpression: "SET doc = :bad",
        ExpressionAttributeValues: { ":bad": "{not json" },
      }),
    );
  },
});

test("dynamodb-local: a stable release costs one small item update per run", async () => {
  const store = open();
  const release = uniqueRelease();
  await recordObservation(store, observe(release, run(0)), 90);
  const afterFirst = { ...store.stats };
  for (let i = 1; i <= 10; i++) await recordObservation(store, observe(release, run(i * 5)), 90);
  assert.equal(store.stats.items - afterFirst.items, 10);
  // An UpdateItem costs the whole item's size (the summary stays small: the body is a separate item), plus the
  // FLEET index copy (lastSeenAt is projected).
  assert.ok(
    (store.stats.writeUnits - afterFirst.writeUnits) / 10 <= 3,
    `${store.stats.writeUnits - afterFirst.writeUnits} units`,
  );
});

test("dynamodb-local: init enables TTL on expiresAt", async () => {
  const client = new DynamoDBClient({ region: "us-east-1", endpoint: engine.endpoint, credentials });
  const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  client.destroy();
  assert.equal(ttl.TimeToLiveDescription?.AttributeName, "expiresAt");
});
