/**
 * The audit pipeline end to end on a real SQS protocol: the planner Lambda handler
 * sends to fauxqs, the local poller hands Lambda SQS batches to the worker Lambda
 * handler, which reads the simulated EKS; stores in memory (their DynamoDB side has
 * its own contract run). A loopback receiver stands in for Slack's webhook.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { after, before, test } from "node:test";
import type { SQSEvent } from "aws-lambda";
import { slotStart } from "../../functions/audit/config.ts";
import { auditRuntimeFromEnv } from "../../functions/audit/deps.ts";
import { createPlannerHandler } from "../../functions/audit/planner.ts";
import { createWorkerHandler } from "../../functions/audit/worker.ts";
import { DEMO_CLUSTERS, demoReleases } from "../../local/demo/releases.ts";
import { seedDemo } from "../../local/demo/seed.ts";
import { localLambdaContext } from "../../local/lambda-context.ts";
import { sqsRecordFrom } from "../../local/queue/lambda-event.ts";
import { createLocalPoller } from "../../local/queue/poller.ts";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { ClusterUnreachableError } from "../../shared/clusters/errors.ts";
import { silentLogger } from "../../shared/ports.ts";
import { memoryHistoryStores } from "../../shared/snapshots/history-stores.ts";
import { runIdFor } from "../../shared/snapshots/model.ts";
import { StoreUnavailableError } from "../../shared/store/errors.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { reliabilityOfRelease } from "../../shared/usecases/reliability.ts";
import { reliabilityOfScope } from "../../shared/usecases/reliability-scope.ts";
import { simConnector } from "../status/sim-connector.ts";
import { drainBodies, freshQueue, type LocalSqs, queueDepth, startTestSqs } from "../support/fauxqs.ts";

let sqs: LocalSqs;
let sim: SimulatedEks;
let slack: Server;
let slackUrl: string;
const posts: { text: string; blocks: unknown[] }[] = [];

before(async () => {
  process.env.POWERTOOLS_METRICS_DISABLED = "true";
  sqs = await startTestSqs();
  sim = await startSimulatedEks({ clusters: DEMO_CLUSTERS.map((c) => ({ name: c.name, region: c.region })), seed: 3 });
  slack = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      posts.push(JSON.parse(body));
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => slack.listen(0, "127.0.0.1", resolve));
  const address = slack.address() as { port: number };
  slackUrl = `http://127.0.0.1:${address.port}/services/T000/B000/xyz`;
});

/** Every runtime a test made: their KubeReaders hold connections to the simulator. */
const runtimes: { close(): Promise<void> }[] = [];

after(async () => {
  await Promise.all(runtimes.map((runtime) => runtime.close()));
  await sim.stop();
  await sqs.stop();
  await new Promise((resolve) => slack.close(resolve));
});

async function pipeline(options: { env?: Record<string, string>; log?: typeof silentLogger } = {}) {
  const queue = await freshQueue(sqs, { visibilityTimeoutSeconds: 1, maxReceiveCount: 5 });
  const store = new MemoryReleaseStore();
  await seedDemo(store, sim);
  const history = memoryHistoryStores();
  const { snapshots, auditRuns } = history;
  const env = {
    ...sqs.env,
    AWS_ACCESS_KEY_ID: "local",
    AWS_SECRET_ACCESS_KEY: "local",
    CLUSTERS: JSON.stringify(sim.registryEntries()),
    AUDIT_QUEUE_URL: queue.queueUrl,
    AUDIT_RELEASES_PER_MESSAGE: "2",
    AUDIT_CLUSTER_CONCURRENCY: "2",
    POWERTOOLS_METRICS_DISABLED: "true",
    ...options.env,
  };
  const connector = simConnector(sim);
  const overrides = { store, historyStores: history, clusters: connector, logger: options.log ?? silentLogger };
  const plannerRuntime = auditRuntimeFromEnv(env, { needQueueUrl: true }, overrides);
  const workerRuntime = auditRuntimeFromEnv(env, {}, overrides);
  runtimes.push(plannerRuntime, workerRuntime);
  const planner = createPlannerHandler(plannerRuntime);
  const worker = createWorkerHandler(workerRuntime);
  const poller = createLocalPoller({
    client: sqs.client,
    queueUrl: queue.queueUrl,
    handler: worker,
    waitTimeSeconds: 0,
  });
  const drain = async () => {
    for (let i = 0; i < 50; i++) {
      const outcome = await poller.pollOnce();
      const depth = await queueDepth(sqs.client, queue.queueUrl);
      if (outcome.received === 0 && depth.visible === 0 && depth.inFlight === 0) return;
    }
    throw new Error("queue did not drain");
  };
  return {
    queue,
    store,
    snapshots,
    auditRuns,
    rollups: history.rollups,
    planner,
    worker,
    poller,
    drain,
    workerRuntime,
    connector,
  };
}

const releasesOf = () =>
  demoReleases().map((d) => ({
    cluster: d.cluster,
    name: d.revisions.at(-1)!.name,
    namespace: d.revisions.at(-1)!.namespace,
  }));

test("a scheduled run snapshots every deployed release once; the same slot again plans nothing; a later slot extends", async () => {
  const p = await pipeline();
  const first = await p.planner({ time: "2026-12-02T10:02:13Z" });
  assert.equal(first.run.runId, "20261202T100000Z");
  assert.equal(first.alreadyPlanned, false);
  const deployed = (await p.store.listDeployed({ limit: 1000 })).items.length;
  assert.equal(first.run.planned, deployed);
  assert.deepEqual(first.run.clusters, [...new Set(releasesOf().map((r) => r.cluster))].sort());
  await p.drain();
  const run = await p.auditRuns.getRun("20261202T100000Z");
  assert.equal(run.done, deployed);
  assert.ok(run.unhealthy >= 1, "the demo's api release is unhealthy");
  // EventBridge retries the planner for the same slot: nothing is sent.
  const again = await p.planner({ time: "2026-12-02T10:04:59Z" });
  assert.equal(again.alreadyPlanned, true);
  assert.deepEqual(await drainBodies(sqs.client, p.queue.queueUrl), []);
  const api = { cluster: "demo-eu", namespace: "shop", name: "api" };
  const history1 = await p.snapshots.list(api, {}, new Date());
  assert.equal(history1.items.length, 1);
  assert.equal(history1.items[0].health.overall, "Failed");
  // The next slot: nothing changed, so the same snapshot is extended.
  await p.planner({ time: "2026-12-02T10:05:00Z" });
  await p.drain();
  const history2 = await p.snapshots.list(api, {}, new Date());
  assert.equal(history2.items.length, 1);
  assert.equal(history2.items[0].seenCount, 2);
});

test("a change is a new snapshot with its changes, logged once and posted to Slack once despite a redelivery", async () => {
  posts.length = 0;
  const p = await pipeline({
    env: { AUDIT_SLACK_WEBHOOK_URL: slackUrl, AUDIT_SLACK_WEBHOOK_ALLOW_HOSTS: new URL(slackUrl).host },
  });
  await p.planner({ time: "2026-12-02T11:00:00Z" });
  await p.drain();
  assert.equal(posts.length, 0, "a first snapshot is not a change");
  // The api release recovers: its pod is ready and the deleted ConfigMap is back.
  const api = demoReleases().find((d) => d.cluster === "demo-eu" && d.revisions.at(-1)!.name === "api")!;
  sim.cluster("demo-eu").materialize(api.revisions.at(-1)!.manifest, { namespace: "shop" });
  await p.planner({ time: "2026-12-02T11:05:00Z" });
  // Deliver the api message twice (SQS is at least once) before the poller deletes it.
  const bodies = await drainBodies(sqs.client, p.queue.queueUrl);
  const event: SQSEvent = {
    Records: bodies.map((body, i) =>
      sqsRecordFrom({ MessageId: `m${i}`, ReceiptHandle: `r${i}`, Body: body }, p.queue.queueArn, "us-east-1"),
    ),
  };
  for (let i = 0; i < 2; i++) {
    const answer = await p.worker(event, localLambdaContext("worker", 30_000));
    assert.deepEqual(answer.batchItemFailures, []);
  }
  const history = await p.snapshots.list({ cluster: "demo-eu", namespace: "shop", name: "api" }, {}, new Date());
  assert.equal(history.items.length, 2);
  const [latest] = history.items;
  assert.equal(latest.health.overall, "Current");
  const kinds = latest.changes.map((c) => c.kind);
  assert.ok(kinds.includes("health"), JSON.stringify(latest.changes));
  assert.ok(kinds.includes("missing-resolved"), JSON.stringify(latest.changes));
  assert.equal(posts.length, 1, "one post per change");
  assert.match(posts[0].text, /shop\/api on demo-eu: Failed → Current/);
  const run = await p.auditRuns.getRun("20261202T110500Z");
  assert.equal(run.changed, 1);
  assert.equal(run.done, run.planned);
  // The worker's rollups (added with each message's DONE marker): the twice-delivered message counted once, so the
  // cluster's events from the rollups are the per-release reports' (api's incident recovered once).
  const deps = {
    snapshots: p.snapshots,
    rollups: p.rollups,
    clusters: "any" as const,
    clock: { now: () => new Date() },
    settings: { auditIntervalSeconds: 300, retentionDays: 90 },
  };
  const fromRollups = await reliabilityOfScope(deps, { since: "1d", cluster: "demo-eu" });
  const releases = (await p.snapshots.fleet({ cluster: "demo-eu" }, new Date())).items;
  const perRelease = { incidents: 0, recovered: 0, deploys: 0 };
  for (const entry of releases) {
    const report = await reliabilityOfRelease(deps, entry.release, { since: "1d" });
    perRelease.incidents += report.incidents.count;
    perRelease.recovered += report.incidents.recovered;
    perRelease.deploys += report.deploys.count;
  }
  assert.ok(perRelease.recovered >= 1);
  assert.deepEqual(
    {
      incidents: fromRollups.incidents.count,
      recovered: fromRollups.incidents.recovered,
      deploys: fromRollups.deploys.count,
    },
    perRelease,
  );
  assert.equal(fromRollups.releases, releases.length);
  assert.ok(fromRollups.worst.some((row) => row.release.name === "api"));
});

test("an unreachable cluster makes one Unknown snapshot per release; a store outage fails only its messages", async () => {
  const p = await pipeline();
  const original = p.connector.access.bind(p.connector);
  p.connector.access = async (name) => {
    if (name === "demo-us") throw new ClusterUnreachableError(name, `cluster "${name}": connection refused`);
    return original(name);
  };
  await p.planner({ time: "2026-12-02T12:00:00Z" });
  await p.drain();
  const fleet = await p.snapshots.fleet({ cluster: "demo-us" }, new Date());
  assert.ok(fleet.items.length > 0);
  for (const entry of fleet.items) {
    assert.equal(entry.health.overall, "Unknown");
    assert.match(entry.health.message, /cluster not read: .*connection refused/);
  }
  // Now the snapshots table is down (reads and writes; the worker's cache of latest snapshots skips the read
  // of a stable release): every message fails (and will be redelivered), none is lost.
  const failing = p.snapshots as unknown as Record<"latest" | "extend" | "create", (...args: unknown[]) => unknown>;
  const methods = ["latest", "extend", "create"] as const;
  const working = methods.map((name) => failing[name]);
  for (const name of methods) {
    failing[name] = async () => {
      throw new StoreUnavailableError(
        "cannot reach DynamoDB at local: connection refused (ECONNREFUSED)",
        "StoreUnreachable",
      );
    };
  }
  await p.planner({ time: "2026-12-02T12:05:00Z" });
  const outcome = await p.poller.pollOnce();
  assert.ok(outcome.received > 0);
  assert.equal(outcome.failed, outcome.received);
  assert.equal(outcome.deleted, 0);
  methods.forEach((name, i) => {
    failing[name] = working[i];
  });
  await new Promise((resolve) => setTimeout(resolve, 1100));
  await p.drain();
  const run = await p.auditRuns.getRun("20261202T120500Z");
  assert.equal(run.done, run.planned);
});

test("a snapshot the store refuses (not an outage) fails that release alone: the message's others are recorded, nothing is redelivered (#39 item 9)", async () => {
  const logged: string[] = [];
  const p = await pipeline({ log: { ...silentLogger, error: (message: string) => logged.push(message) } });
  const refused = releasesOf()[0];
  const isRefused = (r: { cluster: string; name: string }) => r.cluster === refused.cluster && r.name === refused.name;
  const snapshots = p.snapshots as unknown as {
    create: (next: { release: { cluster: string; name: string } }) => Promise<unknown>;
  };
  const create = snapshots.create.bind(p.snapshots);
  snapshots.create = async (next) => {
    if (isRefused(next.release)) {
      throw Object.assign(new Error("Item size has exceeded the maximum allowed size"), {
        name: "ValidationException",
      });
    }
    return create(next as never);
  };
  const planned = await p.planner({ time: "2026-12-02T12:30:00Z" });
  const outcome = await p.poller.pollOnce();
  assert.equal(outcome.failed, 0);
  await p.drain();
  const run = await p.auditRuns.getRun(planned.run.runId);
  assert.equal(run.done, run.planned);
  const fleet = await p.snapshots.fleet({}, new Date());
  assert.ok(!fleet.items.some((entry) => isRefused(entry.release)));
  assert.equal(fleet.items.length, run.planned - 1);
  assert.ok(logged.includes("the audit's snapshot of a release could not be stored"));
});

test("a malformed message fails alone (it ends in the DLQ after maxReceiveCount), the rest of the batch succeeds", async () => {
  const p = await pipeline();
  await p.planner({ time: "2026-12-02T13:00:00Z" });
  const bodies = await drainBodies(sqs.client, p.queue.queueUrl);
  const records = [...bodies, "{not json", JSON.stringify({ v: 1, runId: "x" })].map((body, i) =>
    sqsRecordFrom({ MessageId: `m${i}`, ReceiptHandle: `r${i}`, Body: body }, p.queue.queueArn, "us-east-1"),
  );
  const answer = await p.worker({ Records: records }, localLambdaContext("worker", 30_000));
  assert.deepEqual(
    answer.batchItemFailures.map((f) => f.itemIdentifier),
    [`m${bodies.length}`, `m${bodies.length + 1}`],
  );
});

test("poison messages are refused before any read or write, each with a log line naming why, never a payload value (#25 item 3)", async () => {
  const lines: { level: string; message: string; attributes?: Record<string, unknown> }[] = [];
  const log = {
    ...silentLogger,
    error: (message: string, attributes?: Record<string, unknown>) =>
      lines.push({ level: "error", message, attributes }),
    warn: (message: string, attributes?: Record<string, unknown>) => lines.push({ level: "warn", message, attributes }),
  };
  const p = await pipeline({ log });
  await p.auditRuns.startRun("20261202T140000Z", "2026-12-02T14:00:00Z");
  const target = { namespace: "shop", name: "api", revision: 2 };
  const bodies = [
    // A cluster outside the registry: before, each release got an Unknown snapshot item.
    { v: 1, runId: "20261202T140000Z", part: "p-0", cluster: "not-registered", releases: [target] },
    { v: 1, runId: "20261202T140000Z", part: "p-1", cluster: "bad name!SECRET-1", releases: [target] },
    { v: 1, runId: "20261202T140000Z", part: "p-2", cluster: "demo-eu", releases: [{ ...target, name: "SECRET-2/x" }] },
  ];
  const storeReads = p.store.getLatestOfEach.bind(p.store);
  let reads = 0;
  p.store.getLatestOfEach = (keys) => {
    reads++;
    return storeReads(keys);
  };
  const records = bodies.map((body, i) =>
    sqsRecordFrom(
      { MessageId: `x${i}`, ReceiptHandle: `r${i}`, Body: JSON.stringify(body) },
      p.queue.queueArn,
      "us-east-1",
    ),
  );
  const answer = await p.worker({ Records: records }, localLambdaContext("worker", 30_000));
  assert.deepEqual(answer.batchItemFailures.map((f) => f.itemIdentifier).sort(), ["x0", "x1", "x2"]);
  assert.equal(reads, 0, "nothing was read from the store");
  assert.equal(await p.snapshots.latest({ cluster: "not-registered", namespace: "shop", name: "api" }), undefined);
  assert.equal((await p.auditRuns.getRun("20261202T140000Z")).done, 0);
  const refusals = lines.filter((line) => line.message.startsWith("audit message refused"));
  assert.deepEqual(refusals.map((line) => [line.attributes?.messageId, line.attributes?.reason]).sort(), [
    ["x0", "invalid audit message: its cluster is not in the registry"],
    ["x1", "invalid audit message: cluster is not a cluster name"],
    ["x2", "invalid audit message: a release name is not a release name"],
  ]);
  assert.doesNotMatch(JSON.stringify(lines), /SECRET|not-registered/);
});

test("a 2031 event time and a queued 2099 run id do not freeze the fleet view (#25 item 2)", async () => {
  const p = await pipeline();
  const now = Date.now();
  const earlier = runIdFor(new Date(now - 20 * 60_000));
  await p.planner({ time: new Date(now - 20 * 60_000).toISOString() });
  await p.drain();
  const api = { cluster: "demo-eu", namespace: "shop", name: "api" };
  // What a 2099 message did before the worker refused such run ids: the latest extended with lastRunId 2099.
  const latest = (await p.snapshots.latest(api))!;
  const forgedRun = "20990101T000000Z";
  assert.equal(
    await p.snapshots.extend(latest, {
      runId: forgedRun,
      observedAt: new Date().toISOString(),
      expiresAt: latest.expiresAt,
    }),
    "ok",
  );
  // A queued 2099 message is refused before any read or write.
  const message = { v: 1, runId: "20990101T000500Z", part: "demo-eu-0", cluster: "demo-eu", releases: [api] };
  const refused = await p.worker(
    {
      Records: [
        sqsRecordFrom(
          {
            MessageId: "forged",
            ReceiptHandle: "r",
            Body: JSON.stringify({ ...message, releases: [{ ...api, revision: 2 }] }),
            Attributes: {},
          },
          "arn:aws:sqs:eu-west-1:000000000000:audit",
          "eu-west-1",
        ),
      ],
    },
    localLambdaContext("worker", 10_000),
  );
  assert.deepEqual(refused.batchItemFailures, [{ itemIdentifier: "forged" }]);
  await assert.rejects(p.auditRuns.getRun("20990101T000500Z"), { name: "AuditRunNotFoundError" });
  // A planner invoked with a time in 2031 plans the current slot instead.
  const planned = await p.planner({ time: "2031-06-01T00:00:00Z" });
  assert.equal(planned.run.runId, runIdFor(slotStart(new Date(), 300)));
  assert.ok(planned.run.runId > earlier);
  await p.drain();
  const after = (await p.snapshots.latest(api))!;
  assert.equal(after.lastRunId, planned.run.runId, "the current run was recorded");
  const fleet = await p.snapshots.fleet({ cluster: "demo-eu" }, new Date());
  const entry = fleet.items.find((e) => e.release.name === "api" && e.release.namespace === "shop")!;
  assert.ok(Date.parse(entry.lastSeenAt) >= now - 5_000, `the fleet view is current (last seen ${entry.lastSeenAt})`);
});
