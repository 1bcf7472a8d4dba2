/**
 * Replay protection across instances (#25 item 4) on DynamoDB Local: two Teams webhook instances (two cold starts,
 * each with its own ledger object) share the releases table; an activity answered by one is refused by the other,
 * as a Slack signature is. A claim whose TTL passed is a first sighting again; the key is stored hashed.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { teamsActivityBody, teamsHeaders } from "../../bin/lib/signed-chat-request.ts";
import { loggerPort } from "../../functions/_shared/telemetry.ts";
import { createTeamsHandler } from "../../functions/chatops/teams.ts";
import { type DynamoDbLocal, startDynamoDbLocal } from "../../local/dynamodb-local.ts";
import { parseAccessMap } from "../../shared/chatops/access.ts";
import { REPLAY_WINDOW_MS, replayLedgerFor } from "../../shared/chatops/replay-ledger.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { createDynamoDbClient, type StoreConfig } from "../../shared/store/config.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { ensureReleasesTable } from "../../shared/store/table-schema.ts";
import { httpApiEvent, RecordingLogger, RecordingMetrics } from "../api/support.ts";

const TEAMS_TOKEN = Buffer.from("0123456789abcdef0123456789abcdef").toString("base64");
const ACCESS = parseAccessMap(JSON.stringify({ teams: [{ tenant: "tenant-1", channels: "*", clusters: "*" }] }), "t");

let engine: DynamoDbLocal;
let config: StoreConfig;
before(async () => {
  engine = await startDynamoDbLocal();
  config = { region: "us-east-1", endpoint: engine.endpoint, tableName: `replays-${process.pid}` };
  process.env.AWS_ACCESS_KEY_ID ??= "local";
  process.env.AWS_SECRET_ACCESS_KEY ??= "local";
  const client = createDynamoDbClient(config);
  try {
    await ensureReleasesTable(client, config);
  } finally {
    client.destroy();
  }
});
after(async () => {
  await engine?.stop();
});

function teamsInstance() {
  const clusters = {
    list: () => [],
    access: async (): Promise<never> => Promise.reject(new Error("none")),
    invalidate() {},
  };
  const logger = new RecordingLogger();
  return createTeamsHandler({
    access: ACCESS,
    securityToken: async () => TEAMS_TOKEN,
    store: new MemoryReleaseStore(),
    clusters,
    kube: createKubeReader({ connector: clusters }),
    clock: { now: () => new Date() },
    logger: loggerPort(logger),
    telemetry: { logger, metrics: new RecordingMetrics() },
    replays: replayLedgerFor(config),
  });
}

test("an activity answered by one Teams instance is refused as a replay by another", async () => {
  const [first, second] = [teamsInstance(), teamsInstance()];
  const body = teamsActivityBody({ text: "help", tenant: "tenant-1" });
  const event = () => httpApiEvent("POST", "/chatops/teams", { headers: teamsHeaders(TEAMS_TOKEN, body), body });
  assert.equal((await first(event())).statusCode, 200);
  assert.equal((await second(event())).statusCode, 401, "the same activity at another instance");
  const fresh = teamsActivityBody({ text: "help", tenant: "tenant-1" });
  const freshEvent = httpApiEvent("POST", "/chatops/teams", { headers: teamsHeaders(TEAMS_TOKEN, fresh), body: fresh });
  assert.equal((await second(freshEvent)).statusCode, 200, "a new activity is answered");
});

test("the ledger: first sighting once across instances, again after the window; keys stored hashed", async () => {
  const [a, b] = [replayLedgerFor(config), replayLedgerFor(config)];
  const now = Date.now();
  const key = "slack:v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503";
  assert.equal(await a.firstSeen(key, now), true);
  assert.equal(await b.firstSeen(key, now + 1000), false);
  assert.equal(await b.firstSeen(`${key}x`, now), true);
  assert.equal(await b.firstSeen(key, now + REPLAY_WINDOW_MS + 2000), true, "an expired claim is a first sighting");
  const client = createDynamoDbClient(config);
  try {
    const { ScanCommand } = await import("@aws-sdk/client-dynamodb");
    const items = JSON.stringify((await client.send(new ScanCommand({ TableName: config.tableName }))).Items);
    assert.doesNotMatch(items, /a2114d57/, "no signature is stored");
    assert.match(items, /REPLAY#/);
  } finally {
    client.destroy();
  }
});
