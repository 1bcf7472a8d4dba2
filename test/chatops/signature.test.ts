import assert from "node:assert/strict";
import { test } from "node:test";
import {
  ReplayGuard,
  slackSignature,
  teamsSignature,
  verifySlackSignature,
  verifyTeamsSignature,
} from "../../shared/chatops/signature.ts";

// https://api.slack.com/authentication/verifying-requests-from-slack, "Validating a request" walk-through.
const SLACK_DOC = {
  secret: "8f742231b10e8888abcd99yyyzzz85a5",
  timestamp: "1531420618",
  body:
    "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar" +
    "&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com" +
    "%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c",
  signature: "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503",
};

const docInput = (over: Partial<Parameters<typeof verifySlackSignature>[0]> = {}) => ({
  signingSecret: SLACK_DOC.secret,
  signature: SLACK_DOC.signature,
  timestamp: SLACK_DOC.timestamp,
  body: Buffer.from(SLACK_DOC.body),
  now: Number(SLACK_DOC.timestamp) * 1000 + 30_000,
  ...over,
});

test("Slack's documented example verifies, and our signer reproduces its signature", () => {
  assert.equal(slackSignature(SLACK_DOC.secret, SLACK_DOC.timestamp, SLACK_DOC.body), SLACK_DOC.signature);
  assert.equal(verifySlackSignature(docInput()), true);
});

test("a wrong signature, a wrong secret or a changed body fails", () => {
  assert.equal(verifySlackSignature(docInput({ signature: SLACK_DOC.signature.replace(/.$/, "4") })), false);
  assert.equal(verifySlackSignature(docInput({ signingSecret: "another-secret" })), false);
  assert.equal(verifySlackSignature(docInput({ body: Buffer.from(SLACK_DOC.body.replace("text=", "text=x")) })), false);
  assert.equal(verifySlackSignature(docInput({ signature: SLACK_DOC.signature.replace("v0=", "v1=") })), false);
  assert.equal(verifySlackSignature(docInput({ signature: "v0=abc" })), false, "shorter: no throw, just false");
  assert.equal(verifySlackSignature(docInput({ signature: SLACK_DOC.signature.toUpperCase() })), false);
});

test("stale and future timestamps fail beyond 5 minutes either way, pass inside", () => {
  const t = Number(SLACK_DOC.timestamp) * 1000;
  assert.equal(verifySlackSignature(docInput({ now: t + 5 * 60_000 })), true);
  assert.equal(verifySlackSignature(docInput({ now: t + 5 * 60_000 + 1000 })), false, "stale");
  assert.equal(verifySlackSignature(docInput({ now: t - 5 * 60_000 })), true);
  assert.equal(verifySlackSignature(docInput({ now: t - 5 * 60_000 - 1000 })), false, "from the future");
});

test("a missing header, secret or a malformed timestamp fails", () => {
  assert.equal(verifySlackSignature(docInput({ signature: undefined })), false);
  assert.equal(verifySlackSignature(docInput({ timestamp: undefined })), false);
  assert.equal(verifySlackSignature(docInput({ signingSecret: "" })), false);
  assert.equal(verifySlackSignature(docInput({ timestamp: "1531420618.5" })), false);
  assert.equal(verifySlackSignature(docInput({ timestamp: "" })), false);
});

test("a signature replayed with another timestamp fails; the same request twice is caught by the replay guard", () => {
  const later = String(Number(SLACK_DOC.timestamp) + 60);
  assert.equal(verifySlackSignature(docInput({ timestamp: later, now: Number(later) * 1000 })), false);
  const guard = new ReplayGuard();
  const now = Date.now();
  assert.equal(guard.firstSeen(SLACK_DOC.signature, now), true);
  assert.equal(guard.firstSeen(SLACK_DOC.signature, now + 1000), false);
  assert.equal(guard.firstSeen("v0=other", now + 1000), true);
  // Past the window the entry is dropped (the timestamp check refuses such a request anyway).
  assert.equal(guard.firstSeen(SLACK_DOC.signature, now + 11 * 60_000), true);
});

test("the replay guard is bounded", () => {
  const guard = new ReplayGuard({ capacity: 3 });
  for (let i = 0; i < 10; i++) assert.equal(guard.firstSeen(`s${i}`, 1000), true);
  assert.equal(guard.firstSeen("s9", 1000), false);
  assert.equal(guard.firstSeen("s0", 1000), true, "the oldest were evicted");
});

test("Teams HMAC: good, bad, missing, malformed", () => {
  const token = Buffer.from("a Teams security token of 32 b!!").toString("base64");
  const body = Buffer.from('{"type":"message","text":"<at>helm</at> status api"}');
  const good = `HMAC ${teamsSignature(token, body)}`;
  assert.equal(verifyTeamsSignature({ securityToken: token, authorization: good, body }), true);
  assert.equal(
    verifyTeamsSignature({ securityToken: token, authorization: good, body: Buffer.concat([body, Buffer.from(" ")]) }),
    false,
  );
  const otherToken = Buffer.from("another token, also 32 bytes!!!!").toString("base64");
  assert.equal(verifyTeamsSignature({ securityToken: otherToken, authorization: good, body }), false);
  assert.equal(verifyTeamsSignature({ securityToken: token, authorization: undefined, body }), false);
  assert.equal(verifyTeamsSignature({ securityToken: token, authorization: "", body }), false);
  assert.equal(
    verifyTeamsSignature({ securityToken: token, authorization: good.replace("HMAC", "Bearer"), body }),
    false,
  );
  assert.equal(verifyTeamsSignature({ securityToken: "", authorization: good, body }), false);
  // The key is the base64-DECODED token: keying with the text itself gives another signature.
  const wrongKey = `HMAC ${teamsSignature(Buffer.from(token).toString("base64"), body)}`;
  assert.equal(verifyTeamsSignature({ securityToken: token, authorization: wrongKey, body }), false);
});
