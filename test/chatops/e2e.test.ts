/**
 * Chatops end to end with the real parts: DynamoDB Local, the simulated EKS
 * (with its latency knob), fauxqs as the queue with the worker behind the
 * in-process SQS poller, the local HTTP server, and a loopback response_url
 * receiver that checks every message against Slack's Block Kit limits.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, before, test } from "node:test";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { SendMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import {
  slackCommandBody,
  slackHeaders,
  slackInteractionBody,
  teamsActivityBody,
  teamsHeaders,
} from "../../bin/lib/signed-chat-request.ts";
import { apiDepsFromEnv } from "../../functions/api/deps.ts";
import { type LocalChatops, startLocalChatops } from "../../local/chatops.ts";
import { describeReceived, startResponseUrlReceiver } from "../../local/chatops-receiver.ts";
import { DEMO_CLUSTERS } from "../../local/demo/releases.ts";
import { seedDemo } from "../../local/demo/seed.ts";
import { type DynamoDbLocal, startDynamoDbLocal } from "../../local/dynamodb-local.ts";
import { type LocalServer, startLocalServer } from "../../local/server.ts";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { SLACK_LIMITS } from "../../shared/chatops/limits.ts";
import { ensureReleasesTable } from "../../shared/store/table-schema.ts";
import { RecordingLogger } from "../api/support.ts";
import { BIG_OMITTED, bigRelease } from "./big-release.ts";

const hasJava = spawnSync("java", ["-version"]).status === 0;
let dynamo: DynamoDbLocal;
let sim: SimulatedEks;
let chat: LocalChatops;
let server: LocalServer;
const logger = new RecordingLogger();

before(async () => {
  if (!hasJava) return;
  // Powertools reads this from the process: no EMF lines between the test reports.
  process.env.POWERTOOLS_METRICS_DISABLED = "true";
  [dynamo, sim] = await Promise.all([
    startDynamoDbLocal(),
    startSimulatedEks({ clusters: DEMO_CLUSTERS.map((c) => ({ name: c.name, region: c.region })) }),
  ]);
  const env: NodeJS.ProcessEnv = {
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: sim.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: sim.credentials.secretAccessKey,
    POWERTOOLS_METRICS_DISABLED: "true",
    RELEASES_TABLE: "chatops-e2e",
    CLUSTERS: JSON.stringify(sim.registryEntries()),
    SLACK_SIGNING_SECRET: "e2e-signing-secret",
    TEAMS_WEBHOOK_SECRET: Buffer.from("e2e-teams-token-of-32-bytes-long").toString("base64"),
    CHATOPS_ACCESS: JSON.stringify({
      slack: [{ team: "T0LOCAL", channels: ["C0LOCAL"], clusters: ["demo-eu"], defaults: { namespace: "shop" } }],
      teams: [{ tenant: "tenant-local", channels: "*", clusters: ["demo-eu"] }],
    }),
  };
  // The SDK's default chain reads the credentials from the process environment.
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: env.AWS_ACCESS_KEY_ID,
    AWS_SECRET_ACCESS_KEY: env.AWS_SECRET_ACCESS_KEY,
  });
  const client = new DynamoDBClient({ region: "us-east-1", endpoint: dynamo.endpoint });
  await ensureReleasesTable(client, { tableName: "chatops-e2e", region: "us-east-1", endpoint: dynamo.endpoint });
  client.destroy();
  const deps = apiDepsFromEnv(env, { telemetry: { logger } });
  await seedDemo(deps.store, sim);
  const big = bigRelease();
  await deps.store.putRevision("demo-eu", big);
  sim.cluster("demo-eu").materialize(big.manifest, { namespace: "shop", omit: BIG_OMITTED });
  chat = await startLocalChatops({
    env,
    store: deps.store,
    clusters: deps.clusters,
    logger: deps.logger,
    telemetry: deps.telemetry,
  });
  // The receiver is the only allowed response_url host here (SLACK_RESPONSE_URL_ALLOW_HOSTS unset).
  server = await startLocalServer({
    port: 0,
    handler: (event, context) => chat.handle(event, context) ?? Promise.resolve({ statusCode: 404, body: "" }),
  });
});

after(async () => {
  await chat?.stop();
  await server?.close();
  await sim?.stop();
  await dynamo?.stop();
});

async function slash(text: string, responseUrl: string, channel = "C0LOCAL") {
  const body = slackCommandBody({ text, responseUrl, team: "T0LOCAL", channel, user: "U0LOCAL" });
  const started = performance.now();
  const response = await fetch(`${server.url}/chatops/slack/commands`, {
    method: "POST",
    headers: slackHeaders("e2e-signing-secret", body),
    body,
  });
  const ms = performance.now() - started;
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, ms };
}

test("the ack comes inside 3 s while the cluster answers with 2 s latency; the answer follows at the response_url", {
  skip: !hasJava && "no java for DynamoDB Local",
  timeout: 60_000,
}, async () => {
  sim.cluster("demo-eu").faults.set({ latencyMs: 2000 });
  try {
    const url = chat.receiver.responseUrl();
    const sentAt = Date.now();
    const ack = await slash("status api", url);
    assert.equal(ack.status, 200);
    assert.deepEqual(ack.body, { response_type: "ephemeral", text: "checking shop/api on demo-eu…" });
    assert.ok(ack.ms < 3000, `ack took ${ack.ms} ms`);
    const message = await chat.receiver.waitFor(new URL(url).pathname, 45_000);
    const deferredMs = message.at - sentAt;
    assert.ok(deferredMs >= 2000, "the answer needed the slow cluster");
    assert.deepEqual(message.violations, []);
    const body = message.body as { response_type: string; blocks: { type: string; text?: { text: string } }[] };
    assert.equal(body.response_type, "ephemeral");
    assert.equal(body.blocks[0].text?.text, "shop/api on demo-eu");
    const texts = JSON.stringify(body.blocks);
    assert.match(texts, /:red_circle: Failed/);
    assert.match(texts, /Needs attention/);
    // MISSING and unhealthy first: the attention section precedes every resource group.
    const attention = body.blocks.findIndex((b) => b.text?.text.includes("Needs attention"));
    const service = body.blocks.findIndex((b) => b.text?.text.includes("v1/Service"));
    assert.ok(attention > 0 && attention < service);
    process.stderr.write(`# ack ${Math.round(ack.ms)} ms; answer at the response_url after ${deferredMs} ms\n`);
  } finally {
    sim.cluster("demo-eu").faults.clear();
  }
});

test("a 300-resource release stays within Block Kit's limits, the rest summarised with the API path", {
  skip: !hasJava && "no java for DynamoDB Local",
  timeout: 60_000,
}, async () => {
  const url = chat.receiver.responseUrl();
  const ack = await slash("status big --public", url);
  assert.equal(ack.status, 200);
  const message = await chat.receiver.waitFor(new URL(url).pathname, 45_000);
  if (process.env.CHATOPS_TEST_PRINT) process.stderr.write(`${describeReceived(message)}\n`);
  assert.deepEqual(message.violations, [], "the receiver checks blocks, texts, header, fields and the total");
  const body = message.body as { response_type: string; blocks: { type: string; text?: { text: string } }[] };
  assert.equal(body.response_type, "in_channel");
  assert.ok(body.blocks.length <= SLACK_LIMITS.blocks);
  const all = JSON.stringify(body.blocks);
  assert.match(all, /…and \d+ more ConfigMaps/);
  assert.match(all, /Full text: `GET \/clusters\/demo-eu\/namespaces\/shop\/releases\/big\/status`/);
  assert.match(all, /Needs attention \(5\)/);
  for (const omitted of BIG_OMITTED) assert.match(all, new RegExp(omitted.split("/")[1]));
});

test("Refresh re-runs the status and replaces the message; a denied channel is told so at once", {
  skip: !hasJava && "no java for DynamoDB Local",
  timeout: 60_000,
}, async () => {
  const url = chat.receiver.responseUrl();
  const body = slackInteractionBody({
    actionId: "helm_refresh",
    value: "status web -n shop --cluster demo-eu",
    responseUrl: url,
    team: "T0LOCAL",
    channel: "C0LOCAL",
    user: "U0LOCAL",
  });
  const response = await fetch(`${server.url}/chatops/slack/interactions`, {
    method: "POST",
    headers: slackHeaders("e2e-signing-secret", body),
    body,
  });
  assert.equal(response.status, 200);
  const message = await chat.receiver.waitFor(new URL(url).pathname, 45_000);
  assert.equal((message.body as { replace_original?: boolean }).replace_original, true);
  assert.match(JSON.stringify(message.body), /shop\/web on demo-eu/);

  const denied = await slash("status web", chat.receiver.responseUrl(), "C0ELSEWHERE");
  assert.match(JSON.stringify(denied.body), /not allowed here/);
});

test("the worker re-checks the response_url: a job pointing elsewhere is never posted", {
  skip: !hasJava && "no java for DynamoDB Local",
  timeout: 60_000,
}, async () => {
  const elsewhere = await startResponseUrlReceiver();
  try {
    const sqs = new SQSClient({
      region: "us-east-1",
      endpoint: chat.sqsEndpoint,
      credentials: { accessKeyId: "local", secretAccessKey: "local" },
    });
    const job = {
      version: 1,
      caller: { platform: "slack", team: "T0LOCAL", channel: "C0LOCAL", user: "U0LOCAL" },
      command: "status web -n shop --cluster demo-eu",
      responseUrl: `${elsewhere.url}/steal`,
      public: false,
      replaceOriginal: false,
      receivedAt: Date.now(),
      requestId: "forged",
    };
    await sqs.send(new SendMessageCommand({ QueueUrl: chat.queueUrl, MessageBody: JSON.stringify(job) }));
    sqs.destroy();
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && !logger.lines.some((l) => l.attributes.requestId === "forged")) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const line = logger.lines.find((l) => l.attributes.requestId === "forged");
    assert.equal(line?.attributes.outcome, "refused");
    assert.equal(elsewhere.messages.length, 0);
  } finally {
    await elsewhere.close();
  }
});

test("Teams answers synchronously within 5 s: the report, or 'still reading' with the API path on a slow cluster", {
  skip: !hasJava && "no java for DynamoDB Local",
  timeout: 60_000,
}, async () => {
  const token = Buffer.from("e2e-teams-token-of-32-bytes-long").toString("base64");
  const ask = async (text: string) => {
    const body = teamsActivityBody({ text, tenant: "tenant-local" });
    const started = performance.now();
    const response = await fetch(`${server.url}/chatops/teams`, {
      method: "POST",
      headers: teamsHeaders(token, body),
      body,
    });
    return {
      status: response.status,
      body: (await response.json()) as { type: string; text: string },
      ms: performance.now() - started,
    };
  };
  const fast = await ask("status web -n shop --cluster demo-eu");
  assert.equal(fast.status, 200);
  assert.match(fast.body.text, /\*\*shop\/web on demo-eu\*\*/);
  assert.match(fast.body.text, /HEALTH\*\* 🟢 Current/);
  sim.cluster("demo-eu").faults.set({ latencyMs: 6000 });
  try {
    const slow = await ask("status api -n shop --cluster demo-eu");
    assert.equal(slow.status, 200);
    assert.ok(slow.ms < 5000, `Teams waits 5 s; answered in ${slow.ms} ms`);
    assert.match(slow.body.text, /still reading|not read in time/);
    assert.match(slow.body.text, /GET \/clusters\/demo-eu\/namespaces\/shop\/releases\/api\/status/);
  } finally {
    sim.cluster("demo-eu").faults.clear();
  }
  const bad = await fetch(`${server.url}/chatops/teams`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "HMAC AAAA" },
    body: "{}",
  });
  assert.equal(bad.status, 401);
});
