/**
 * Faults on a real SQS protocol and real DynamoDB: a worker killed mid-batch
 * (SIGKILL after its first snapshot write, messages not deleted) and a fresh
 * worker after the visibility timeout expires lose no snapshot and duplicate none.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { after, before, test } from "node:test";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { auditRuntimeFromEnv } from "../../functions/audit/deps.ts";
import { createPlannerHandler } from "../../functions/audit/planner.ts";
import { createWorkerHandler } from "../../functions/audit/worker.ts";
import { DEMO_CLUSTERS } from "../../local/demo/releases.ts";
import { seedDemo } from "../../local/demo/seed.ts";
import { type DynamoDbLocal, startDynamoDbLocal } from "../../local/dynamodb-local.ts";
import { createLocalPoller } from "../../local/queue/poller.ts";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { silentLogger } from "../../shared/ports.ts";
import { ensureSnapshotsTable } from "../../shared/snapshots/table-schema.ts";
import { openReleaseStore } from "../../shared/store/config.ts";
import { ensureReleasesTable } from "../../shared/store/table-schema.ts";
import { drainBodies, freshQueue, type LocalSqs, queueDepth, startTestSqs } from "../support/fauxqs.ts";

const hasJava = spawnSync("java", ["-version"]).status === 0;
let sqs: LocalSqs;
let dynamo: DynamoDbLocal;
let sim: SimulatedEks;
let env: Record<string, string>;

before(async () => {
  if (!hasJava) return;
  process.env.POWERTOOLS_METRICS_DISABLED = "true";
  [sqs, dynamo, sim] = await Promise.all([
    startTestSqs(),
    startDynamoDbLocal(),
    startSimulatedEks({ clusters: DEMO_CLUSTERS.map((c) => ({ name: c.name, region: c.region })), seed: 5 }),
  ]);
  env = {
    PATH: process.env.PATH ?? "",
    ...sqs.env,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: sim.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: sim.credentials.secretAccessKey,
    CLUSTERS: JSON.stringify(sim.registryEntries()),
    RELEASES_TABLE: `crash-releases-${process.pid}`,
    SNAPSHOTS_TABLE: `crash-snapshots-${process.pid}`,
    AUDIT_RELEASES_PER_MESSAGE: "1",
    POWERTOOLS_METRICS_DISABLED: "true",
    POWERTOOLS_LOG_LEVEL: "SILENT",
  };
  const client = new DynamoDBClient({ region: "us-east-1", endpoint: dynamo.endpoint, credentials: sim.credentials });
  const location = { region: "us-east-1", endpoint: dynamo.endpoint };
  await ensureReleasesTable(client, { ...location, tableName: env.RELEASES_TABLE });
  await ensureSnapshotsTable(client, { ...location, tableName: env.SNAPSHOTS_TABLE });
  client.destroy();
  await seedDemo(openReleaseStore({ ...location, tableName: env.RELEASES_TABLE, credentials: sim.credentials }), sim);
});

/** The runtimes' KubeReaders hold connections to the simulator. */
const runtimes: { close(): Promise<void> }[] = [];

after(async () => {
  await Promise.all(runtimes.map((runtime) => runtime.close()));
  await Promise.all([sqs?.stop(), dynamo?.stop(), sim?.stop()]);
});

test("a worker killed mid-batch, then the visibility timeout: every release snapshotted exactly once", {
  skip: !hasJava && "no java for DynamoDB Local",
  timeout: 120_000,
}, async () => {
  const queue = await freshQueue(sqs, { visibilityTimeoutSeconds: 2, maxReceiveCount: 5 });
  const runEnv = { ...env, AUDIT_QUEUE_URL: queue.queueUrl };
  const plannerRuntime = auditRuntimeFromEnv(runEnv, { needQueueUrl: true }, { logger: silentLogger });
  runtimes.push(plannerRuntime);
  const planner = createPlannerHandler(plannerRuntime);
  const plan = await planner({ time: "2026-12-02T09:00:00Z" });
  assert.equal(plan.run.planned, 3);

  const child = spawn(process.execPath, [new URL("./support/crash-worker.ts", import.meta.url).pathname], {
    env: runEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const signal = await new Promise<string>((resolve) => child.once("exit", (code, sig) => resolve(`${sig ?? code}`)));
  assert.equal(signal, "SIGKILL", output);
  assert.match(output, /^wrote demo-/m);
  // The batch it held is in flight (not deleted), until its visibility timeout expires.
  const depth = await queueDepth(sqs.client, queue.queueUrl);
  assert.equal(depth.visible + depth.inFlight, 3, JSON.stringify(depth));

  const runtime = auditRuntimeFromEnv(runEnv, {}, { logger: silentLogger });
  runtimes.push(runtime);
  const poller = createLocalPoller({
    client: sqs.client,
    queueUrl: queue.queueUrl,
    handler: createWorkerHandler(runtime),
    waitTimeSeconds: 1,
  });
  for (let i = 0; i < 20; i++) {
    await poller.pollOnce();
    const now = await queueDepth(sqs.client, queue.queueUrl);
    if (now.visible === 0 && now.inFlight === 0) break;
  }
  assert.deepEqual(await queueDepth(sqs.client, queue.queueUrl), { visible: 0, inFlight: 0 });
  assert.deepEqual(await drainBodies(sqs.client, queue.dlqUrl), []);

  const run = await runtime.auditRuns.getRun(plan.run.runId);
  assert.equal(run.done, 3, JSON.stringify(run));
  for (const release of [
    { cluster: "demo-eu", namespace: "shop", name: "web" },
    { cluster: "demo-eu", namespace: "shop", name: "api" },
    { cluster: "demo-us", namespace: "observability", name: "metrics" },
  ]) {
    const page = await runtime.snapshots.list(release, {}, new Date("2026-12-03T00:00:00Z"));
    assert.equal(page.items.length, 1, `${release.name}: ${JSON.stringify(page.items.map((s) => s.id))}`);
    assert.equal(page.items[0].seenCount, 1, `${release.name} applied once`);
    assert.equal(page.items[0].runId, plan.run.runId);
  }
});
