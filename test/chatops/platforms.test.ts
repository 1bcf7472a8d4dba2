/**
 * The chat platforms as data (shared/chatops/platforms.ts): each record verifies its own platform's signature
 * and no other's, checks its callers' ids, and renders; a platform nobody recorded gets no rules at all (not
 * another platform's), in the access map and on the job queue.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { slackCommandBody, slackHeaders, teamsActivityBody, teamsHeaders } from "../../bin/lib/signed-chat-request.ts";
import { EMPTY_ACCESS, parseAccessMap, resolveAccess } from "../../shared/chatops/access.ts";
import { acknowledge } from "../../shared/chatops/acknowledge.ts";
import { parseChatJob } from "../../shared/chatops/job.ts";
import { CHAT_PLATFORMS, chatPlatform } from "../../shared/chatops/platforms.ts";

const SLACK_SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
const TEAMS_TOKEN = Buffer.from("0123456789abcdef0123456789abcdef").toString("base64");

const OPEN = parseAccessMap(
  `
slack: [{ team: "*", channels: "*", clusters: "*" }]
teams: [{ tenant: "*", channels: "*", clusters: "*" }]
`,
  "test",
);

test("each record verifies its own platform's signature over the exact bytes, and no other platform's", () => {
  const slackBody = slackCommandBody({ text: "help", responseUrl: "https://hooks.slack.com/commands/T/1/x" });
  const teamsBody = teamsActivityBody({ text: "help", tenant: "tenant-1" });
  const signed = {
    slack: { headers: slackHeaders(SLACK_SECRET, slackBody), body: Buffer.from(slackBody), secret: SLACK_SECRET },
    teams: { headers: teamsHeaders(TEAMS_TOKEN, teamsBody), body: Buffer.from(teamsBody), secret: TEAMS_TOKEN },
  };
  const lower = (headers: Record<string, string>) =>
    Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  for (const [name, record] of Object.entries(CHAT_PLATFORMS)) {
    for (const [sender, request] of Object.entries(signed)) {
      const verified = record.verify({ ...request, headers: lower(request.headers), now: Date.now() });
      assert.equal(verified, name === sender, `${name} verifying a ${sender} request`);
    }
    const own = signed[name as keyof typeof signed];
    const tampered = Buffer.concat([own.body, Buffer.from(" ")]);
    assert.equal(record.verify({ ...own, headers: lower(own.headers), body: tampered, now: Date.now() }), false);
  }
});

test("a record takes well-formed ids as its caller, and nothing else", () => {
  assert.deepEqual(CHAT_PLATFORMS.slack.caller("T1", "C1", "U1"), {
    platform: "slack",
    team: "T1",
    channel: "C1",
    user: "U1",
  });
  assert.equal(CHAT_PLATFORMS.slack.caller("T1", "C1", "<!channel>"), undefined);
  assert.equal(CHAT_PLATFORMS.slack.caller("T1", undefined, "U1"), undefined);
  const teams = CHAT_PLATFORMS.teams.caller("72f988bf-86f1", "19:abc@thread.tacv2", "29:1xyz");
  assert.equal(teams?.platform, "teams");
  assert.equal(CHAT_PLATFORMS.teams.caller("tenant", "19:abc @thread", "u"), undefined);
});

test("a platform nobody recorded gets no rules: denied by the access map, refused on the job queue", () => {
  assert.equal(chatPlatform("discord"), undefined);
  assert.equal(chatPlatform("constructor"), undefined);
  for (const platform of ["discord", "constructor", "__proto__"]) {
    const access = resolveAccess(OPEN, { platform, team: "T1", channel: "C1", user: "U1" });
    assert.ok(access.none, `${platform} reads nothing even where every Slack and Teams channel may`);
    const acknowledged = acknowledge("status api --cluster prod", access, { knownClusters: ["prod"] });
    assert.ok("answer" in acknowledged && acknowledged.answer.kind === "denied");
  }
  assert.throws(() => parseAccessMap("discord: []", "test"), /unknown key "discord" \(allowed: slack, teams\)/);
  const job = {
    version: 1,
    caller: { platform: "discord", team: "T1", channel: "C1", user: "U1" },
    command: "status api",
    responseUrl: "https://hooks.slack.com/commands/T/1/x",
    public: false,
    replaceOriginal: false,
    receivedAt: 0,
    requestId: "r",
  };
  assert.throws(() => parseChatJob(JSON.stringify(job)), /not a version 1 ChatJob/);
  assert.equal(
    parseChatJob(JSON.stringify({ ...job, caller: { ...job.caller, platform: "slack" } })).caller.platform,
    "slack",
  );
});

test("the access map has one list per recorded platform, keyed by its name and its workspace field", () => {
  assert.deepEqual(Object.keys(EMPTY_ACCESS).sort(), Object.keys(CHAT_PLATFORMS).sort());
  assert.throws(
    () => parseAccessMap('teams: [{ team: "T1", channels: "*", clusters: "*" }]', "test"),
    /teams\[0\]: teams bindings name a "tenant", not a "team"/,
  );
});

test("every record renders an answer as its platform's message", () => {
  const answer = { kind: "denied" as const, message: "not allowed here" };
  const slack = CHAT_PLATFORMS.slack.render(answer, {}, { public: false }) as { response_type: string };
  assert.equal(slack.response_type, "ephemeral");
  const teams = CHAT_PLATFORMS.teams.render(answer, {}, { public: true }) as { type: string; text: string };
  assert.equal(teams.type, "message");
  assert.match(teams.text, /not allowed here/);
});
