/** `chatops sign`: what it prints verifies with the product's own checks; no secret on the command line. */
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { run } from "../../bin/commands/chatops.ts";
import { reportError } from "../../bin/lib/run.ts";
import { verifySlackSignature, verifyTeamsSignature } from "../../shared/chatops/signature.ts";

function io(env: NodeJS.ProcessEnv) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (c) => (out += c));
  stderr.on("data", (c) => (err += c));
  return { io: { stdout, stderr, stdin: new PassThrough(), env }, out: () => out, err: () => err };
}

test("a signed slash command as JSON verifies; curl config carries the same headers and body", async () => {
  const t = io({ SLACK_SIGNING_SECRET: "s3cret" });
  const args = [
    "sign",
    "--format",
    "json",
    "--response-url",
    "http://127.0.0.1:9/commands/x",
    "status",
    "api",
    "-n",
    "shop",
  ];
  assert.equal(await run(args, t.io), 0);
  const signed = JSON.parse(t.out()) as { url: string; headers: Record<string, string>; body: string };
  assert.equal(signed.url, "http://127.0.0.1:3000/chatops/slack/commands");
  assert.equal(new URLSearchParams(signed.body).get("text"), "status api -n shop");
  assert.ok(
    verifySlackSignature({
      signingSecret: "s3cret",
      signature: signed.headers["x-slack-signature"],
      timestamp: signed.headers["x-slack-request-timestamp"],
      body: Buffer.from(signed.body),
      now: Date.now(),
    }),
  );
  const c = io({ SLACK_SIGNING_SECRET: "s3cret" });
  assert.equal(await run(["sign", "--response-url", "http://127.0.0.1:9/x", "help"], c.io), 0);
  assert.match(c.out(), /^url = "http:\/\/127\.0\.0\.1:3000\/chatops\/slack\/commands"$/m);
  assert.match(c.out(), /^header = "x-slack-signature: v0=[0-9a-f]{64}"$/m);
  assert.match(c.out(), /^data-binary = "token=/m);
});

test("Teams activities are signed with the base64-decoded token", async () => {
  const token = Buffer.from("0123456789abcdef0123456789abcdef").toString("base64");
  const t = io({ TEAMS_WEBHOOK_SECRET: token });
  assert.equal(await run(["sign", "--teams", "--format", "json", "status", "web"], t.io), 0);
  const signed = JSON.parse(t.out()) as { headers: Record<string, string>; body: string };
  assert.match(JSON.parse(signed.body).text, /<at>helm<\/at>&nbsp;status web/);
  assert.ok(
    verifyTeamsSignature({
      securityToken: token,
      authorization: signed.headers.authorization,
      body: Buffer.from(signed.body),
    }),
  );
});

test("a missing secret or response_url is a clear usage error", async () => {
  for (const [env, args, message] of [
    [{}, ["sign", "--response-url", "http://x/y", "help"], /SLACK_SIGNING_SECRET is not set/],
    [{ SLACK_SIGNING_SECRET: "s" }, ["sign", "help"], /--response-url is required/],
    [{}, ["sign", "--teams", "help"], /TEAMS_WEBHOOK_SECRET is not set/],
    [{}, ["verify"], /unknown chatops subcommand "verify"/],
  ] as const) {
    const t = io(env as NodeJS.ProcessEnv);
    const code = await run([...args], t.io).catch((error) => reportError(error, t.io));
    assert.equal(code, 2);
    assert.match(t.err(), message);
  }
});
