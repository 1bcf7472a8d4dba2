/**
 * The Slack ingress and the Teams webhook as Lambda handlers, with real API
 * Gateway v2 events and real signatures: what is refused (401 without detail),
 * what is answered at once (usage, help, denial), what is queued, and what is
 * logged. The queue is a recording stand-in here (fauxqs runs in e2e.test.ts).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  slackCommandBody,
  slackHeaders,
  slackInteractionBody,
  teamsActivityBody,
  teamsHeaders,
} from "../../bin/lib/signed-chat-request.ts";
import { loggerPort } from "../../functions/_shared/telemetry.ts";
import { createSlackIngress } from "../../functions/chatops/slack.ts";
import { createTeamsHandler } from "../../functions/chatops/teams.ts";
import type { SlackIngressDeps } from "../../functions/chatops/types.ts";
import { parseAccessMap } from "../../shared/chatops/access.ts";
import type { ChatJob } from "../../shared/chatops/job.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import type { ReleaseStore } from "../../shared/store/release-store.ts";
import { httpApiEvent, RecordingLogger, RecordingMetrics } from "../api/support.ts";

const SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
const TEAMS_TOKEN = Buffer.from("0123456789abcdef0123456789abcdef").toString("base64");
const HOOK = "https://hooks.slack.com/commands/T1/123/abc";
const ACCESS = parseAccessMap(
  `
slack:
  - { team: T1, channels: [C-SHOP], clusters: [prod-eu], namespaces: [shop], defaults: { cluster: prod-eu, namespace: shop } }
teams:
  - { tenant: tenant-1, channels: "*", clusters: [prod-eu], namespaces: [shop] }
`,
  "test",
);

function setup(over: Partial<SlackIngressDeps> = {}) {
  const jobs: ChatJob[] = [];
  const logger = new RecordingLogger();
  const handler = createSlackIngress({
    access: ACCESS,
    allowHosts: [],
    signingSecret: async () => SECRET,
    queue: { send: async (job) => void jobs.push(job) },
    clusterNames: () => ["prod-eu", "prod-us"],
    telemetry: { logger, metrics: new RecordingMetrics() },
    ...over,
  });
  return { handler, jobs, logger };
}

function command(
  text: string,
  options: { channel?: string; responseUrl?: string; base64?: boolean; now?: number } = {},
) {
  const body = slackCommandBody({
    text,
    responseUrl: options.responseUrl ?? HOOK,
    team: "T1",
    channel: options.channel ?? "C-SHOP",
    user: "U1",
  });
  const headers = slackHeaders(SECRET, body, options.now);
  return httpApiEvent("POST", "/chatops/slack/commands", {
    headers,
    body: options.base64 ? Buffer.from(body).toString("base64") : body,
    isBase64Encoded: options.base64 ?? false,
  });
}

const json = (result: { body?: string }) => JSON.parse(result.body ?? "null");

test("a signed status is queued and acknowledged with an ephemeral 'checking …'; the log has no token or response_url", async () => {
  const { handler, jobs, logger } = setup();
  const result = await handler(command("status api --public"));
  assert.equal(result.statusCode, 200);
  assert.deepEqual(json(result), { response_type: "ephemeral", text: "checking shop/api on prod-eu…" });
  assert.equal(jobs.length, 1);
  assert.deepEqual(
    { ...jobs[0], receivedAt: 0, requestId: "" },
    {
      version: 1,
      caller: { platform: "slack", team: "T1", channel: "C-SHOP", user: "U1" },
      command: "status api",
      responseUrl: HOOK,
      public: true,
      replaceOriginal: false,
      receivedAt: 0,
      requestId: "",
    },
  );
  const line = logger.lines.find((l) => l.message === "chat command");
  const attributes = line?.attributes ?? {};
  assert.equal(typeof attributes.durationMs, "number");
  const keys = ["platform", "team", "channel", "user", "command", "outcome"];
  assert.deepEqual(
    { ...Object.fromEntries(keys.map((k) => [k, attributes[k]])), durationMs: 0 },
    {
      platform: "slack",
      team: "T1",
      channel: "C-SHOP",
      user: "U1",
      command: "status api --public",
      outcome: "queued",
      durationMs: 0,
    },
  );
  assert.doesNotMatch(logger.text(), /hooks\.slack\.com|local-verification-token|8f742231/);
});

test("a base64-encoded body (as API Gateway may send it) verifies over the decoded bytes", async () => {
  const { handler, jobs } = setup();
  const result = await handler(command("status api", { base64: true }));
  assert.equal(result.statusCode, 200);
  assert.equal(jobs.length, 1);
});

test("wrong, stale, future, missing and replayed signatures: 401 with no detail, nothing queued", async () => {
  const { handler, jobs, logger } = setup();
  const event = command("status api");
  const tampered = { ...event, body: `${event.body}x` };
  const wrong = { ...event, headers: { ...event.headers, "x-slack-signature": `v0=${"0".repeat(64)}` } };
  const stale = command("status api", { now: Date.now() - 6 * 60_000 });
  const future = command("status api", { now: Date.now() + 6 * 60_000 });
  const noSignature = { ...event, headers: { ...event.headers, "x-slack-signature": undefined as unknown as string } };
  const noTimestamp = {
    ...event,
    headers: { ...event.headers, "x-slack-request-timestamp": undefined as unknown as string },
  };
  const bodies = new Set<string>();
  for (const refused of [tampered, wrong, stale, future, noSignature, noTimestamp]) {
    const result = await handler(refused);
    assert.equal(result.statusCode, 401);
    // The request id (to quote to an operator, like every error of the HTTP stack) is the only difference.
    const { error } = JSON.parse(result.body ?? "null");
    assert.equal(error.requestId, refused.requestContext.requestId);
    bodies.add(JSON.stringify({ error: { ...error, requestId: undefined } }));
  }
  assert.equal(bodies.size, 1, "every failure answers the same body");
  assert.deepEqual(
    [...bodies].map((b) => JSON.parse(b)),
    [{ error: { code: "Unauthorized", message: "unauthorized" } }],
  );
  assert.equal((await handler(event)).statusCode, 200);
  assert.equal((await handler(event)).statusCode, 401, "the same signed request again is a replay");
  assert.equal(jobs.length, 1);
  assert.ok(logger.lines.filter((l) => l.message === "chat request refused").length >= 7);
});

test("ssl_check=1 answers 200 with an empty body", async () => {
  const { handler } = setup();
  const body = "ssl_check=1&token=x";
  const result = await handler(
    httpApiEvent("POST", "/chatops/slack/commands", { headers: slackHeaders(SECRET, body), body }),
  );
  assert.equal(result.statusCode, 200);
  assert.equal(result.body, "");
});

test("bad syntax answers an ephemeral usage at once; help lists what the channel may read", async () => {
  const { handler, jobs } = setup();
  const usage = json(await handler(command("stauts api")));
  assert.equal(usage.response_type, "ephemeral");
  assert.match(JSON.stringify(usage.blocks), /unknown command \\"stauts\\"/);
  assert.match(JSON.stringify(usage.blocks), /\/helm status RELEASE/);
  const help = json(await handler(command("help")));
  assert.match(
    JSON.stringify(help.blocks),
    /This channel may read prod-eu \(default cluster prod-eu, namespace shop\)/,
  );
  assert.equal(jobs.length, 0);
});

// The ingress has no store at all: a denial cannot depend on whether the release exists.
test("a denied channel or namespace hears 'not allowed here' whether or not the release exists; nothing is queued", async () => {
  const { handler, jobs, logger } = setup();
  const answers = new Set<string>();
  for (const event of [
    command("status api", { channel: "C-OTHER" }),
    command("status no-such-release", { channel: "C-OTHER" }),
    command("status api -n kube-system"),
    command("history api --cluster prod-us"),
  ]) {
    const result = await handler(event);
    assert.equal(result.statusCode, 200);
    const body = json(result);
    assert.equal(body.response_type, "ephemeral");
    answers.add(JSON.stringify(body));
  }
  assert.equal(answers.size, 1);
  assert.match([...answers][0], /not allowed here/);
  assert.equal(jobs.length, 0);
  assert.equal(logger.lines.filter((l) => l.attributes.outcome === "denied").length, 4);
});

test("a response_url to another host is refused and never queued (unless SLACK_RESPONSE_URL_ALLOW_HOSTS names it)", async () => {
  const { handler, jobs } = setup();
  const result = await handler(command("status api", { responseUrl: "https://attacker.example/collect" }));
  assert.equal(result.statusCode, 400);
  assert.match(json(result).error.message, /host attacker\.example is not hooks\.slack\.com/);
  assert.equal(jobs.length, 0);
  const allowed = setup({ allowHosts: [{ host: "attacker.example" }] });
  assert.equal(
    (await allowed.handler(command("status api", { responseUrl: "https://attacker.example/collect" }))).statusCode,
    200,
  );
  assert.equal(allowed.jobs.length, 1);
});

test("a Refresh click is verified, re-authorised for the clicker, and queued to replace the message", async () => {
  const { handler, jobs } = setup();
  const click = (channel: string) => {
    const body = slackInteractionBody({
      actionId: "helm_refresh",
      value: "status api -n shop --cluster prod-eu",
      responseUrl: "https://hooks.slack.com/actions/T1/1/x",
      team: "T1",
      channel,
      user: "U2",
    });
    return httpApiEvent("POST", "/chatops/slack/interactions", { headers: slackHeaders(SECRET, body), body });
  };
  const ok = await handler(click("C-SHOP"));
  assert.equal(ok.statusCode, 200);
  assert.equal(ok.body, "");
  assert.equal(jobs.length, 1);
  assert.equal(jobs[0].replaceOriginal, true);
  assert.equal(jobs[0].command, "status api -n shop --cluster prod-eu");
  const denied = json(await handler(click("C-OTHER")));
  assert.equal(denied.replace_original, false);
  assert.match(JSON.stringify(denied), /not allowed here/);
  assert.equal(jobs.length, 1);
  const unsigned = click("C-SHOP");
  unsigned.headers["x-slack-signature"] = `v0=${"a".repeat(64)}`;
  assert.equal((await handler(unsigned)).statusCode, 401);
});

test("Teams HMAC: good answers a message, bad and missing are 401, a replayed activity is 401", async () => {
  const logger = new RecordingLogger();
  const store = new Proxy({} as ReleaseStore, {
    get: (_t, name) => async () => {
      throw Object.assign(new Error(`store.${String(name)} unavailable in this test`), {});
    },
  });
  const clusters = {
    list: () => [{ name: "prod-eu", region: "eu-west-1" }],
    access: async () => {
      throw new Error("no");
    },
    invalidate() {},
  };
  const handler = createTeamsHandler({
    access: ACCESS,
    securityToken: async () => TEAMS_TOKEN,
    store,
    clusters,
    kube: createKubeReader({ connector: clusters }),
    clock: { now: () => new Date() },
    logger: loggerPort(logger),
    telemetry: { logger, metrics: new RecordingMetrics() },
  });
  const body = teamsActivityBody({ text: "help", tenant: "tenant-1" });
  const event = (headers: Record<string, string>) => httpApiEvent("POST", "/chatops/teams", { headers, body });
  const good = await handler(event(teamsHeaders(TEAMS_TOKEN, body)));
  assert.equal(good.statusCode, 200);
  assert.equal(json(good).type, "message");
  assert.match(json(good).text, /@helm status RELEASE/);
  assert.equal((await handler(event(teamsHeaders(TEAMS_TOKEN, body)))).statusCode, 401, "same activity id again");
  const other = Buffer.from("another-token-another-token-1234").toString("base64");
  const fresh = teamsActivityBody({ text: "help", tenant: "tenant-1" });
  assert.equal(
    (await handler(httpApiEvent("POST", "/chatops/teams", { headers: teamsHeaders(other, fresh), body: fresh })))
      .statusCode,
    401,
  );
  assert.equal(
    (
      await handler(
        httpApiEvent("POST", "/chatops/teams", { headers: { "content-type": "application/json" }, body: fresh }),
      )
    ).statusCode,
    401,
  );
  // No timestamp at all (Teams always sends one): refused, as a stale one is (#25 item 4).
  const undated = JSON.stringify({
    ...JSON.parse(teamsActivityBody({ text: "help", tenant: "tenant-1" })),
    timestamp: undefined,
  });
  assert.equal(
    (
      await handler(
        httpApiEvent("POST", "/chatops/teams", { headers: teamsHeaders(TEAMS_TOKEN, undated), body: undated }),
      )
    ).statusCode,
    401,
    "an activity without a timestamp",
  );
  const old = teamsActivityBody({ text: "help", tenant: "tenant-1", now: Date.now() - 10 * 60_000 });
  assert.equal(
    (await handler(httpApiEvent("POST", "/chatops/teams", { headers: teamsHeaders(TEAMS_TOKEN, old), body: old })))
      .statusCode,
    401,
    "an activity older than 5 minutes",
  );
  const denied = teamsActivityBody({ text: "status api -n kube-system", tenant: "tenant-1" });
  const deniedAnswer = await handler(
    httpApiEvent("POST", "/chatops/teams", { headers: teamsHeaders(TEAMS_TOKEN, denied), body: denied }),
  );
  assert.match(json(deniedAnswer).text, /not allowed here/);
});
