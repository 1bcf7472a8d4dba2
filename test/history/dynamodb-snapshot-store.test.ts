/** The history's contracts on DynamoDB Local (one table for the five stores), plus what only the real engine shows (item counts, TTL, table shape). */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { DescribeTimeToLiveCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { type DynamoDbLocal, startDynamoDbLocal } from "../../local/dynamodb-local.ts";
import { recordObservation } from "../../shared/audit/record.ts";
import { dynamoDbHistoryStores } from "../../shared/snapshots/history-stores.ts";
import { parseSnapshotId } from "../../shared/snapshots/model.ts";
import { ensureSnapshotsTable } from "../../shared/snapshots/table-schema.ts";
import { createDocumentClient } from "../../shared/store/config.ts";
import { auditRunContract } from "./audit-run-contract.ts";
import { snapshotStoreContract } from "./contract.ts";
import { NOW, observe, run, uniqueRelease } from "./fixtures.ts";
import { rollupContract } from "./rollup-contract.ts";
import { notificationClaimsContract, sloStateContract } from "./small-stores-contract.ts";
import { staleHintContract } from "./stale-hint-contract.ts";

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
const open = () => dynamoDbHistoryStores({ client: db(), tableName, region: "us-east-1", endpoint: engine.endpoint });

snapshotStoreContract("dynamodb-local", async () => open().snapshots, {
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

staleHintContract("dynamodb-local", async () => open().snapshots);
auditRunContract("dynamodb-local", async () => open().auditRuns);
rollupContract("dynamodb-local", async () => open());
notificationClaimsContract("dynamodb-local", async () => open());
sloStateContract("dynamodb-local", async () => open());

test("dynamodb-local: a stable release costs one small item update per run", async () => {
  const store = open();
  const release = uniqueRelease();
  await recordObservation(store.snapshots, observe(release, run(0)), 90);
  const afterFirst = { ...store.stats };
  for (let i = 1; i <= 10; i++) await recordObservation(store.snapshots, observe(release, run(i * 5)), 90);
  assert.equal(store.stats.items - afterFirst.items, 10);
  // An UpdateItem costs the whole item's size (the summary stays small: the body is a separate item), plus the
  // FLEET index copy (lastSeenAt is projected).
  assert.ok(
    (store.stats.writeUnits - afterFirst.writeUnits) / 10 <= 3,
    `${store.stats.writeUnits - afterFirst.writeUnits} units`,
  );
});

test("dynamodb-local: a run's bookkeeping is one small item per message, the run item does not grow", async () => {
  const store = open();
  const runId = `20260102T000000Z-g${process.pid % 1000}`;
  await store.auditRuns.startRun(runId, "2026-01-02T00:00:00.000Z");
  const parts = Array.from({ length: 60 }, (_, i) => ({ id: `grow-cluster-${i}`, releases: 10, cluster: "grow" }));
  const runItem = async () =>
    (await db().send(new GetCommand({ TableName: tableName, Key: { PK: "RUN", SK: `R#${runId}` } }))).Item;
  const before = await runItem();
  const start = { ...store.stats };
  await store.auditRuns.recordSent(runId, parts);
  for (const part of parts) {
    await store.auditRuns.completeMessage(
      runId,
      part.id,
      { done: 10, failed: 0, unhealthy: 0, changed: 0 },
      "2026-01-02T00:01:00.000Z",
    );
  }
  assert.deepEqual(await runItem(), before);
  assert.equal(store.stats.items - start.items, 120);
  // One write unit per marker (each well under 1 KB), whatever the run's size.
  assert.equal(store.stats.writeUnits - start.writeUnits, 120);
  assert.equal((await store.auditRuns.getRun(runId)).done, 600);
});

test("dynamodb-local: a run recorded before the per-message markers reads with its own counters", async () => {
  const store = open();
  const runId = `20251231T235500Z-l${process.pid % 1000}`;
  await db().send(
    new PutCommand({
      TableName: tableName,
      Item: {
        PK: "RUN",
        SK: `R#${runId}`,
        runId,
        startedAt: "2025-12-31T23:55:00.000Z",
        plannedAt: "2025-12-31T23:55:01.000Z",
        planned: 20,
        messages: 2,
        done: 20,
        failed: 1,
        unhealthy: 3,
        changed: 2,
        lastDoneAt: "2025-12-31T23:55:41.000Z",
        clusterSet: new Set(["eu", "us"]),
        sentParts: new Set(["eu-0", "us-0"]),
        doneParts: new Set(["eu-0", "us-0"]),
      },
    }),
  );
  const read = await store.auditRuns.getRun(runId);
  assert.deepEqual(
    [read.planned, read.messages, read.done, read.failed, read.unhealthy, read.changed, read.clusters, read.durationMs],
    [20, 2, 20, 1, 3, 2, ["eu", "us"], 41_000],
  );
});

test("dynamodb-local: init enables TTL on expiresAt", async () => {
  const client = new DynamoDBClient({ region: "us-east-1", endpoint: engine.endpoint, credentials });
  const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  client.destroy();
  assert.equal(ttl.TimeToLiveDescription?.AttributeName, "expiresAt");
});

test("dynamodb-local: the FLEET index's writes spread over its shards; an entry written before them moves on its next audit", async () => {
  // Every audit writes each release's FLEET entry (lastSeenAt is projected); nearly all are Current: one partition
  // key took them all before the shards (docs/scale.md "Fixes", hot keys).
  const client = db();
  const counts = { scanned: 0, queries: 0 };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      if (context.commandName === "QueryCommand") {
        counts.queries++;
        counts.scanned += (out.output as { ScannedCount?: number }).ScannedCount ?? 0;
      }
      return out;
    },
    { step: "initialize", name: "countScanned" },
  );
  const store = dynamoDbHistoryStores({ client, tableName, region: "us-east-1", endpoint: engine.endpoint });
  const cluster = `shards${process.pid}`;
  const releases = Array.from({ length: 200 }, (_, i) => ({
    cluster,
    namespace: "shop",
    name: `app-${String(i).padStart(3, "0")}`,
  }));
  for (const release of releases) await recordObservation(store.snapshots, observe(release, run(0)), 90);
  const perPartition = new Map<string, number>();
  for (const release of releases) {
    const key = { PK: `SNAP#${cluster}#shop#${release.name}`, SK: `S#${run(0)}` };
    const item = (await db().send(new GetCommand({ TableName: tableName, Key: key }))).Item;
    perPartition.set(String(item?.FLEETPK), (perPartition.get(String(item?.FLEETPK)) ?? 0) + 1);
  }
  assert.equal(perPartition.size, 8, `200 entries over ${perPartition.size} partition keys (before: 1)`);
  assert.ok(Math.max(...perPartition.values()) <= 40, "the busiest partition takes at most a fifth (before: all 200)");

  // An entry as written before the shards: still listed, and moved to its shard by its release's next audit.
  const legacy = { PK: `SNAP#${cluster}#shop#app-007`, SK: `S#${run(0)}` };
  await db().send(
    new UpdateCommand({
      TableName: tableName,
      Key: legacy,
      UpdateExpression: "SET FLEETPK = :old",
      ExpressionAttributeValues: { ":old": "HEALTH#Current" },
    }),
  );
  const names = async (limit: number) => {
    const all: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const found = await store.snapshots.fleet({ cluster, limit, cursor }, NOW);
      all.push(...found.items.map((e) => e.release.name));
      cursor = found.cursor;
      if (!cursor) break;
    }
    return all;
  };
  const before = { ...counts };
  assert.deepEqual(
    await names(50),
    releases.map((r) => r.name),
    "merged in order across the shards, paged",
  );
  // Four pages of 50 read about the page each, not a page per partition (9 partitions: 1,800 items).
  assert.ok(counts.scanned - before.scanned <= 2 * 200 + 4 * 9 * 8, `${counts.scanned - before.scanned} items read`);
  await recordObservation(store.snapshots, observe(releases[7], run(5)), 90);
  const moved = (await db().send(new GetCommand({ TableName: tableName, Key: legacy }))).Item;
  assert.match(String(moved?.FLEETPK), /^HEALTH#Current#[0-7]$/);
  assert.deepEqual(
    await names(1000),
    releases.map((r) => r.name),
  );
});
