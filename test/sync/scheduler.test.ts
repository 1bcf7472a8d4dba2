/**
 * The sync scheduler Lambda handler against fauxqs: one message per cluster to sync; a cluster whose registry entry
 * says `sync: false` gets one too while the who lookup is on (its imports and audits enqueue attributions that the
 * worker looks up), none with WHO_LOOKUP=off.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { syncRuntimeFromEnv } from "../../functions/sync/deps.ts";
import { createSchedulerHandler } from "../../functions/sync/scheduler.ts";
import { silentLogger } from "../../shared/ports.ts";
import type { AuditLogLookup } from "../../shared/who/attribution.ts";
import { drainBodies, freshQueue, type LocalSqs, startTestSqs } from "../support/fauxqs.ts";

let sqs: LocalSqs;
before(async () => {
  process.env.POWERTOOLS_METRICS_DISABLED = "true";
  sqs = await startTestSqs();
});
after(() => sqs?.stop());

const REGISTRY = [
  { name: "synced", region: "us-east-1" },
  { name: "pushed-only", region: "us-east-1", sync: false },
];
const noLookup: AuditLogLookup = { lookup: async () => ({ events: [], queries: 0 }) } as unknown as AuditLogLookup;

async function schedule(whoLookup: "on" | "off") {
  const { queueUrl } = await freshQueue(sqs);
  const env = {
    STORE_DRIVER: "memory",
    AWS_REGION: "us-east-1",
    CLUSTERS: JSON.stringify(REGISTRY),
    SYNC_QUEUE_URL: queueUrl,
    WHO_LOOKUP: whoLookup,
  };
  const runtime = syncRuntimeFromEnv(env, { needQueueUrl: true }, { auditLog: noLookup, logger: silentLogger });
  try {
    const result = await createSchedulerHandler(runtime, sqs.client)({});
    const sent = (await drainBodies(sqs.client, queueUrl)).map((body) => JSON.parse(body).cluster).sort();
    return { result, sent };
  } finally {
    await runtime.close();
  }
}

test("who lookup on: a sync: false cluster is messaged too, for its attributions", async () => {
  const { result, sent } = await schedule("on");
  assert.deepEqual(sent, ["pushed-only", "synced"]);
  assert.deepEqual(result.skipped, []);
});

test("who lookup off: a sync: false cluster is not messaged (nothing to do for it)", async () => {
  const { result, sent } = await schedule("off");
  assert.deepEqual(sent, ["synced"]);
  assert.deepEqual(result.skipped, ["pushed-only"]);
});
