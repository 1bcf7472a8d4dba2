import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { embeddedDataDir, usesEmbeddedStore } from "../../bin/lib/store.ts";
import { openReleaseStore, storeConfigFromEnv } from "../../shared/store/config.ts";
import { DynamoDbReleaseStore } from "../../shared/store/dynamodb-store.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";

test("store config: defaults, endpoint, explicit keys", () => {
  assert.deepEqual(storeConfigFromEnv({ AWS_REGION: "eu-west-1" }), {
    region: "eu-west-1",
    tableName: "helm-releases",
  });
  assert.deepEqual(
    storeConfigFromEnv({ AWS_ENDPOINT_URL_DYNAMODB: "http://127.0.0.1:8000", RELEASES_TABLE: "t.x-1" }),
    {
      region: "us-east-1",
      endpoint: "http://127.0.0.1:8000",
      tableName: "t.x-1",
    },
  );
  assert.equal(storeConfigFromEnv({ AWS_DEFAULT_REGION: "ap-south-1" }).region, "ap-south-1");
  const withKeys = storeConfigFromEnv({
    AWS_REGION: "us-west-2",
    AWS_ACCESS_KEY_ID: "AK",
    AWS_SECRET_ACCESS_KEY: "SK",
    AWS_SESSION_TOKEN: "T",
  });
  assert.deepEqual(withKeys.credentials, { accessKeyId: "AK", secretAccessKey: "SK", sessionToken: "T" });
});

test("store config: every bad value fails fast naming the variable", () => {
  const cases: [NodeJS.ProcessEnv, RegExp][] = [
    [{}, /AWS_REGION is not set/],
    [{ AWS_REGION: "Europe West" }, /AWS_REGION "Europe West" is not a region name/],
    [{ AWS_ENDPOINT_URL_DYNAMODB: "localhost:8000x" }, /AWS_ENDPOINT_URL_DYNAMODB must be an http/],
    [{ AWS_ENDPOINT_URL_DYNAMODB: "::" }, /AWS_ENDPOINT_URL_DYNAMODB "::" is not a URL/],
    [{ AWS_ENDPOINT_URL_DYNAMODB: "http://u:p@127.0.0.1" }, /must not contain credentials/],
    [{ AWS_REGION: "eu-west-1", RELEASES_TABLE: "a b" }, /RELEASES_TABLE "a b" is not a DynamoDB table name/],
  ];
  for (const [env, message] of cases) {
    assert.throws(() => storeConfigFromEnv(env), { name: "StoreConfigError", kind: "validation", message });
  }
});

test("the CLI embeds DynamoDB Local only when nothing points at a real DynamoDB", () => {
  const home = mkdtempSync(join(tmpdir(), "home-"));
  try {
    assert.equal(usesEmbeddedStore({ HOME: home }), true);
    assert.equal(usesEmbeddedStore({ HOME: home, AWS_ENDPOINT_URL_DYNAMODB: "http://127.0.0.1:1" }), false);
    assert.equal(usesEmbeddedStore({ HOME: home, AWS_ACCESS_KEY_ID: "x" }), false);
    assert.equal(usesEmbeddedStore({ HOME: home, AWS_PROFILE: "prod" }), false);
    mkdirSync(join(home, ".aws"));
    writeFileSync(join(home, ".aws", "credentials"), "[default]\n");
    assert.equal(usesEmbeddedStore({ HOME: home }), false);
    assert.equal(embeddedDataDir({ HELM_STATUS_DATA_DIR: "/x" }), "/x");
    assert.match(embeddedDataDir({}), /\.data\/dynamodb$/);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test("store driver: STORE_DRIVER picks the implementation, like HELM_DRIVER; an unknown one is a clear error", () => {
  const memory = storeConfigFromEnv({ STORE_DRIVER: "memory" });
  assert.equal(memory.driver, "memory");
  assert.ok(openReleaseStore(memory) instanceof MemoryReleaseStore, "memory needs no AWS settings");
  assert.ok(openReleaseStore(storeConfigFromEnv({ AWS_REGION: "eu-west-1" })) instanceof DynamoDbReleaseStore);
  assert.equal(storeConfigFromEnv({ AWS_REGION: "eu-west-1", STORE_DRIVER: "dynamodb" }).driver, "dynamodb");
  assert.throws(() => storeConfigFromEnv({ AWS_REGION: "eu-west-1", STORE_DRIVER: "sql" }), {
    name: "StoreConfigError",
    message: 'STORE_DRIVER "sql" is not a store driver: one of dynamodb, memory',
  });
  assert.throws(() => openReleaseStore({ driver: "secret" as never, region: "eu-west-1", tableName: "t-1" }), {
    name: "StoreConfigError",
    message: 'store driver "secret" is not a store driver: one of dynamodb, memory',
  });
});
