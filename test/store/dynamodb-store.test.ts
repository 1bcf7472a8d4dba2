/** The contract on DynamoDB Local (started once for this file), plus what only the real engine can show. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { DescribeTimeToLiveCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { type DynamoDbLocal, startDynamoDbLocal } from "../../local/dynamodb-local.ts";
import { createDocumentClient, openReleaseStore, type StoreConfig } from "../../shared/store/config.ts";
import { DynamoDbReleaseStore } from "../../shared/store/dynamodb-store.ts";
import type { ReleaseStore } from "../../shared/store/release-store.ts";
import { ensureReleasesTable } from "../../shared/store/table-schema.ts";
import { storeContract } from "./contract.ts";
import { highEntropyManifest, makeRelease, uniqueName } from "./fixtures.ts";
import { latestOfEachContract } from "./latest-of-each-contract.ts";
import { removeRevisionContract } from "./remove-contract.ts";

const credentials = { accessKeyId: "test", secretAccessKey: "test" };
let engine: DynamoDbLocal;
let tables = 0;

before(async () => {
  engine = await startDynamoDbLocal();
});
after(async () => {
  await engine?.stop();
});

function config(tableName: string): StoreConfig {
  return { region: "us-east-1", endpoint: engine.endpoint, tableName, credentials };
}

async function freshTable(): Promise<{ store: ReleaseStore; cfg: StoreConfig }> {
  tables += 1;
  const cfg = config(`releases-${process.pid}-${tables}`);
  const client = new DynamoDBClient({ region: cfg.region, endpoint: cfg.endpoint, credentials });
  await ensureReleasesTable(client, cfg);
  client.destroy();
  return { store: openReleaseStore(cfg), cfg };
}

storeContract("dynamodb-local", async () => (await freshTable()).store);
latestOfEachContract("dynamodb-local", async () => (await freshTable()).store);
removeRevisionContract("dynamodb-local", async () => (await freshTable()).store);

describe("dynamodb-local: storage details", () => {
  let store: ReleaseStore;
  let cfg: StoreConfig;
  const db = () => createDocumentClient(cfg);
  const pk = (name: string) => `REL#local#default#${name}`;
  const key = (name: string) => ({ cluster: "local", namespace: "default", name });
  before(async () => {
    ({ store, cfg } = await freshTable());
  });

  test("a 5 MB high-entropy manifest round-trips byte for byte across several chunks", async () => {
    const name = uniqueName("big");
    const manifest = highEntropyManifest(5 * 1024 * 1024);
    const release = makeRelease({ name, manifest });
    assert.equal(await store.putRevision("local", release), "created");
    const read = await store.getRevision(key(name), 1);
    assert.equal(read.manifest.length, manifest.length);
    assert.ok(read.manifest === manifest, "manifest differs");
    assert.deepEqual(read, release);
    assert.equal((await store.getLatest(key(name))).manifest, manifest);
    const chunks = await chunkKeys(name, 1);
    assert.ok(chunks.length >= 8, `expected >= 8 chunks, got ${chunks.length}`);
    const revision = await db().send(
      new GetCommand({ TableName: cfg.tableName, Key: { PK: pk(name), SK: "REV#0000000001" } }),
    );
    assert.equal(revision.Item?.manifest.chunks, chunks.length);
    assert.equal(revision.Item?.data, undefined);
    assert.equal(await store.putRevision("local", release), "unchanged");
  });

  test("metadata reads never touch chunks: history and list work with every chunk gone", async () => {
    const name = uniqueName();
    await store.putRevision("local", makeRelease({ name }));
    await deleteChunk(name, 1, 0);
    assert.equal((await store.history(key(name))).items[0].version, 1);
    assert.ok((await store.listReleases({ cluster: "local" })).items.some((s) => s.name === name));
    await assert.rejects(store.getRevision(key(name), 1), { name: "ManifestCorruptError", kind: "corrupt" });
  });

  /** The same table through a client that names every DynamoDB operation it sends. */
  function countingStore(): { store: DynamoDbReleaseStore; calls: string[] } {
    const calls: string[] = [];
    const client = createDocumentClient(cfg);
    client.middlewareStack.add(
      (next, context) => (args) => {
        calls.push(String(context.commandName).replace(/Command$/, "")); // the wire operation: GetItem, Query…
        return next(args);
      },
      { step: "initialize" },
    );
    const counted = new DynamoDbReleaseStore({ client, tableName: cfg.tableName, region: "us-east-1" });
    return { store: counted, calls };
  }
  const latestItem = async (name: string) =>
    (await db().send(new GetCommand({ TableName: cfg.tableName, Key: { PK: pk(name), SK: "LATEST" } }))).Item;

  test("the latest revision of a small release is one GetItem: LATEST carries its body; older ones and big ones read chunks", async () => {
    const [small, big] = [uniqueName("small"), uniqueName("big")];
    await store.putRevision("local", makeRelease({ name: small, version: 1 }));
    await store.putRevision("local", makeRelease({ name: small, version: 2 }));
    await store.putRevision("local", makeRelease({ name: big, manifest: highEntropyManifest(200_000) }));
    const { store: counted, calls } = countingStore();

    const latest = await counted.getLatest(key(small));
    assert.deepEqual(latest, makeRelease({ name: small, version: 2 }));
    assert.deepEqual(calls.splice(0), ["GetItem"]);
    assert.ok((await latestItem(small))?.inlineBody instanceof Uint8Array);
    // The REV# items do not carry it (history pages stay small); an older revision reads its chunk.
    const revision = await db().send(
      new GetCommand({ TableName: cfg.tableName, Key: { PK: pk(small), SK: "REV#0000000001" } }),
    );
    assert.equal(revision.Item?.inlineBody === undefined, true);
    assert.deepEqual(await counted.getRevision(key(small), 1), makeRelease({ name: small, version: 1 }));
    assert.deepEqual(calls.splice(0), ["GetItem", "Query"]);
    // Over 64 KB compressed: chunks only, LATEST stays small.
    assert.equal((await counted.getLatest(key(big))).manifest.length, 200_000);
    assert.deepEqual(calls.splice(0), ["GetItem", "Query"]);
    assert.equal((await latestItem(big))?.inlineBody === undefined, true);
    // getLatestOfEach: no chunk read for an inline body, one batched read for the others.
    const reads = await counted.getLatestOfEach([key(small), key(big)]);
    assert.deepEqual(
      reads.map((read) => ("release" in read ? read.release.version : read.error.name)),
      [2, 1],
    );
    assert.deepEqual(calls.splice(0), ["BatchGetItem", "BatchGetItem"]);
    await counted.getLatestOfEach([key(small)]);
    assert.deepEqual(calls.splice(0), ["BatchGetItem"]);
  });

  test("a LATEST item without the inline copy (stored before it existed) reads its chunks; a damaged copy is ManifestCorruptError", async () => {
    const [old, damaged] = [uniqueName("old"), uniqueName("damaged")];
    for (const name of [old, damaged]) await store.putRevision("local", makeRelease({ name }));
    const { store: counted, calls } = countingStore();
    await db().send(
      new UpdateCommand({
        TableName: cfg.tableName,
        Key: { PK: pk(old), SK: "LATEST" },
        UpdateExpression: "REMOVE inlineBody",
      }),
    );
    assert.deepEqual(await counted.getLatest(key(old)), makeRelease({ name: old }));
    assert.deepEqual(calls.splice(0), ["GetItem", "Query"]);
    assert.ok("release" in (await counted.getLatestOfEach([key(old)]))[0]);

    const copy = (await latestItem(damaged))?.inlineBody as Uint8Array;
    const flipped = Uint8Array.from(copy);
    flipped[flipped.length >> 1] ^= 0xff;
    await db().send(
      new UpdateCommand({
        TableName: cfg.tableName,
        Key: { PK: pk(damaged), SK: "LATEST" },
        UpdateExpression: "SET inlineBody = :b",
        ExpressionAttributeValues: { ":b": flipped },
      }),
    );
    await assert.rejects(counted.getLatest(key(damaged)), { name: "ManifestCorruptError", message: /sha256/ });
    const [read] = await counted.getLatestOfEach([key(damaged)]);
    assert.ok("error" in read && read.error.name === "ManifestCorruptError");
  });

  test("metadata near its 350 KB limit: LATEST stays under DynamoDB's 400 KB item limit without the inline copy", async () => {
    const name = uniqueName("values");
    // ≈ 352 KB of values and a manifest that compresses to ≈ 40 KB: the item cannot carry both.
    const release = makeRelease({ name, manifest: highEntropyManifest(60_000) });
    release.config = { blob: "v".repeat(352_000) };
    assert.equal(await store.putRevision("local", release), "created");
    assert.equal((await latestItem(name))?.inlineBody === undefined, true);
    assert.deepEqual(await store.getLatest(key(name)), release);
  });

  test("a missing, damaged or extra chunk reads as ManifestCorruptError, never a truncated manifest", async () => {
    const name = uniqueName("corrupt");
    await store.putRevision("local", makeRelease({ name, version: 1, manifest: highEntropyManifest(700_000) }));
    await store.putRevision("local", makeRelease({ name, version: 2, manifest: highEntropyManifest(700_000) }));
    await store.putRevision("local", makeRelease({ name, version: 3, manifest: highEntropyManifest(700_000) }));
    const sk = await chunkKeys(name, 1);
    assert.ok(sk.length >= 2);
    await deleteChunk(name, 1, 1);
    await assert.rejects(store.getRevision(key(name), 1), {
      name: "ManifestCorruptError",
      message: /expected \d+ chunk/,
    });

    const [first] = await chunkKeys(name, 2);
    const damaged = new Uint8Array(1000).fill(7);
    await db().send(
      new UpdateCommand({
        TableName: cfg.tableName,
        Key: { PK: pk(name), SK: first },
        UpdateExpression: "SET #d = :d",
        ExpressionAttributeNames: { "#d": "data" },
        ExpressionAttributeValues: { ":d": damaged },
      }),
    );
    await assert.rejects(store.getRevision(key(name), 2), { name: "ManifestCorruptError" });

    const keys3 = await chunkKeys(name, 3);
    const extra = `${keys3[0].slice(0, -4)}9999`;
    await db().send(
      new PutCommand({ TableName: cfg.tableName, Item: { PK: pk(name), SK: extra, data: new Uint8Array(3) } }),
    );
    await assert.rejects(store.getLatest(key(name)), { name: "ManifestCorruptError" });
  });

  test("getLatestOfEach: a damaged body fails its release alone, the others are read", async () => {
    const [broken, fine] = [uniqueName("broken"), uniqueName("fine")];
    await store.putRevision("local", makeRelease({ name: broken, manifest: highEntropyManifest(700_000) }));
    await store.putRevision("local", makeRelease({ name: fine }));
    await deleteChunk(broken, 1, 1);
    const [bad, good] = await store.getLatestOfEach([key(broken), key(fine)]);
    assert.ok("error" in bad && bad.error.name === "ManifestCorruptError", JSON.stringify(bad));
    assert.match((bad as { error: Error }).error.message, /expected \d+ chunk/);
    assert.ok("release" in good && good.release.name === fine);
  });

  test("LATEST only moves forward and sits in the sparse deployed index only while deployed", async () => {
    const name = uniqueName();
    await store.putRevision("local", makeRelease({ name, version: 3, status: "deployed" }));
    await store.putRevision("local", makeRelease({ name, version: 2, status: "superseded" }));
    let latest = (await db().send(new GetCommand({ TableName: cfg.tableName, Key: { PK: pk(name), SK: "LATEST" } })))
      .Item;
    assert.equal(latest?.revision, 3);
    assert.equal(latest?.GSI1PK, "DEPLOYED");
    assert.equal(await store.putRevision("local", makeRelease({ name, version: 3, status: "failed" })), "updated");
    latest = (await db().send(new GetCommand({ TableName: cfg.tableName, Key: { PK: pk(name), SK: "LATEST" } }))).Item;
    assert.equal(latest?.status, "failed");
    assert.equal("GSI1PK" in (latest ?? {}), false);
    assert.equal("GSI1SK" in (latest ?? {}), false);
  });

  test("init is idempotent and enables TTL on expiresAt", async () => {
    const cfg2 = config(uniqueName("init"));
    const client = new DynamoDBClient({ region: cfg2.region, endpoint: cfg2.endpoint, credentials });
    try {
      assert.equal((await ensureReleasesTable(client, cfg2)).created, true);
      assert.equal((await ensureReleasesTable(client, cfg2)).created, false);
      const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: cfg2.tableName }));
      assert.equal(ttl.TimeToLiveDescription?.AttributeName, "expiresAt");
      assert.equal(ttl.TimeToLiveDescription?.TimeToLiveStatus, "ENABLED");
    } finally {
      client.destroy();
    }
  });

  test("a missing table and an unreachable endpoint are clear StoreUnavailableErrors", async () => {
    const missing = openReleaseStore(config("no-such-table"));
    await assert.rejects(missing.getLatest(key("x")), {
      name: "StoreUnavailableError",
      code: "TableNotFound",
      message: /no-such-table.*init/,
    });
    const { freeLoopbackPort } = await import("../../local/dynamodb-local.ts");
    const port = await freeLoopbackPort();
    const down = openReleaseStore({ ...config("t"), endpoint: `http://127.0.0.1:${port}` });
    await assert.rejects(down.history(key("x")), {
      name: "StoreUnavailableError",
      kind: "unavailable",
      message: new RegExp(`cannot reach DynamoDB at http://127.0.0.1:${port}: connection refused`),
    });
  });

  async function chunkKeys(name: string, revision: number): Promise<string[]> {
    const keys: string[] = [];
    let startKey: Record<string, unknown> | undefined;
    // Query pages stop at 1 MB; 100 pages is far more than any test writes.
    for (let page = 0; page < 100; page++) {
      const result = await db().send(
        new QueryCommand({
          TableName: cfg.tableName,
          KeyConditionExpression: "PK = :pk AND begins_with(SK, :b)",
          ExpressionAttributeValues: { ":pk": pk(name), ":b": `BLOB#${String(revision).padStart(10, "0")}#` },
          ProjectionExpression: "SK",
          ExclusiveStartKey: startKey,
        }),
      );
      keys.push(...(result.Items ?? []).map((item) => item.SK as string));
      startKey = result.LastEvaluatedKey;
      if (!startKey) break;
    }
    return keys.sort();
  }

  async function deleteChunk(name: string, revision: number, index: number): Promise<void> {
    const keys = await chunkKeys(name, revision);
    await db().send(new DeleteCommand({ TableName: cfg.tableName, Key: { PK: pk(name), SK: keys[index] } }));
  }
});
