/**
 * `fleet` and `timeline` over the status-history snapshots (in-memory snapshot
 * store, the history branch's fixtures), answered by the real worker handler
 * from a real SQS event, posted to a loopback receiver: scoped by the access map.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { loggerPort } from "../../functions/_shared/telemetry.ts";
import { createChatWorker } from "../../functions/chatops/worker.ts";
import { type ResponseUrlReceiver, startResponseUrlReceiver } from "../../local/chatops-receiver.ts";
import { sqsRecordFrom } from "../../local/queue/lambda-event.ts";
import { parseAccessMap } from "../../shared/chatops/access.ts";
import { parseChatCommand } from "../../shared/chatops/command.ts";
import type { ChatJob } from "../../shared/chatops/job.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { memoryHistoryStores } from "../../shared/snapshots/history-stores.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { lambdaContext, RecordingLogger, RecordingMetrics } from "../api/support.ts";
import { NOW, observe, recordAudited, run } from "../history/fixtures.ts";

let receiver: ResponseUrlReceiver;
const history = memoryHistoryStores();
const access = parseAccessMap(
  `
slack:
  - { team: T1, channels: [C1], clusters: [eu, us], namespaces: [shop] }
`,
  "test",
);

before(async () => {
  receiver = await startResponseUrlReceiver();
  const api = { cluster: "eu", namespace: "shop", name: "api" };
  await recordAudited(history, observe(api, run(0)), 90);
  await recordAudited(history, observe(api, run(5), { podHealth: "Failed", restarts: "3" }), 90);
  await recordAudited(history, observe({ cluster: "us", namespace: "shop", name: "web" }, run(5)), 90);
  await recordAudited(
    history,
    observe({ cluster: "us", namespace: "kube-system", name: "dns" }, run(5), { podHealth: "Failed" }),
    90,
  );
});
after(() => receiver.close());

function worker() {
  const clusters = {
    list: () => [
      { name: "eu", region: "eu-west-1" },
      { name: "us", region: "us-east-1" },
    ],
    access: async (): Promise<never> => {
      throw new Error("fleet and timeline read no cluster");
    },
    invalidate() {},
  };
  const logger = new RecordingLogger();
  return createChatWorker({
    store: new MemoryReleaseStore(),
    clusters,
    kube: createKubeReader({ connector: clusters }),
    clock: { now: () => NOW },
    logger: loggerPort(logger),
    telemetry: { logger, metrics: new RecordingMetrics() },
    historyStores: history,
    access,
    allowHosts: [{ host: "127.0.0.1", port: Number(new URL(receiver.url).port) }],
  });
}

async function ask(command: string) {
  const responseUrl = receiver.responseUrl();
  const job: ChatJob = {
    version: 1,
    caller: { platform: "slack", team: "T1", channel: "C1", user: "U1" },
    command,
    responseUrl,
    public: false,
    replaceOriginal: false,
    // The worker reads a job's age on its one clock (the use cases' NOW here).
    receivedAt: NOW.getTime(),
    requestId: "r",
  };
  const record = sqsRecordFrom(
    { MessageId: "m1", ReceiptHandle: "h", Body: JSON.stringify(job) },
    "arn:aws:sqs:eu-west-1:1:q",
    "eu-west-1",
  );
  const result = await worker()({ Records: [record] }, lambdaContext());
  assert.deepEqual(result.batchItemFailures, []);
  const message = await receiver.waitFor(new URL(responseUrl).pathname, 5000);
  assert.deepEqual(message.violations, []);
  return JSON.stringify(message.body);
}

test("a forged job received in the future is not answered; one received now is (#25 item 3)", async () => {
  const post = async (receivedAt: number) => {
    const responseUrl = receiver.responseUrl();
    const job: ChatJob = {
      version: 1,
      caller: { platform: "slack", team: "T1", channel: "C1", user: "U1" },
      command: "fleet",
      responseUrl,
      public: false,
      replaceOriginal: false,
      receivedAt,
      requestId: "r",
    };
    const record = sqsRecordFrom(
      { MessageId: "m", ReceiptHandle: "h", Body: JSON.stringify(job) },
      "arn:q",
      "eu-west-1",
    );
    const result = await worker()({ Records: [record] }, lambdaContext());
    assert.deepEqual(result.batchItemFailures, []);
    return receiver.waitFor(new URL(responseUrl).pathname, 1500).then(
      () => "answered",
      () => "not answered",
    );
  };
  assert.equal(await post(NOW.getTime() + 365 * 86_400_000), "not answered");
  assert.equal(await post(NOW.getTime() - 31 * 60_000), "not answered");
  assert.equal(await post(NOW.getTime()), "answered");
});

test("the parser offers fleet and timeline only with snapshots", () => {
  assert.ok(parseChatCommand("fleet", { snapshots: true }).ok);
  assert.ok(!parseChatCommand("fleet").ok);
});

test("fleet lists what is not Current in the clusters and namespaces the channel may read", async () => {
  const text = await ask("fleet");
  assert.match(text, /Unhealthy now/);
  assert.match(text, /eu\s+shop\/api\s+2\s+Failed/);
  assert.doesNotMatch(text, /kube-system\/dns/, "a namespace the channel may not read is not shown");
  assert.doesNotMatch(text, /shop\/web/, "Current releases are not listed");
  assert.match(text, /GET \/fleet\/health/);
});

test("timeline shows a release's snapshots, newest first, with their changes", async () => {
  const text = await ask("timeline api -n shop --cluster eu");
  assert.match(text, /shop\/api timeline on eu/);
  assert.match(text, /2026-01-01 00:05Z.*Failed/);
  assert.match(text, /2026-01-01 00:00Z.*Current/);
  assert.match(text, /GET \/clusters\/eu\/namespaces\/shop\/releases\/api\/snapshots/);
  assert.match(await ask("timeline dns -n kube-system --cluster us"), /not allowed here/);
});

test("reliability answers the CLI's report, for a release or a namespace the channel may read", async () => {
  assert.ok(parseChatCommand("reliability api --since 7d", { snapshots: true }).ok);
  assert.ok(!parseChatCommand("reliability api", {}).ok, "only with the status history");
  const bad = parseChatCommand("reliability api --since soon", { snapshots: true });
  assert.ok(!bad.ok && /--since takes a duration ago/.test(bad.error));
  const release = await ask("reliability api -n shop --cluster eu --since 2026-01-01T00:00:00Z");
  assert.match(release, /Reliability of shop\/api on eu/);
  assert.match(release, /RELEASE\s+shop\/api on eu/);
  // Current 0..5, then Failed from 5 with no audit since: an open incident, most of the day a gap.
  assert.match(release, /INCIDENTS\s+1 \(0 recovered, 1 open\)/);
  assert.match(
    release,
    /GET \/clusters\/eu\/namespaces\/shop\/releases\/api\/reliability\?since=2026-01-01T00%3A00%3A00Z/,
  );
  const namespace = await ask("reliability -n shop --cluster us --since 2026-01-01T00:00:00Z");
  assert.match(namespace, /SCOPE\s+cluster us, namespace shop: 1 audited release/);
  assert.doesNotMatch(namespace, /kube-system/);
  assert.match(await ask("reliability --cluster us"), /not allowed here/, "a cluster-wide sum needs every namespace");
});
