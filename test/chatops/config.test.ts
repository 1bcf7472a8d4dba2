import assert from "node:assert/strict";
import { test } from "node:test";
import { slackCommandBody, slackHeaders } from "../../bin/lib/signed-chat-request.ts";
import { chatopsSettingsFromEnv } from "../../functions/chatops/config.ts";
import { secretReader, secretSourceFromEnv } from "../../functions/chatops/secrets.ts";
import { createSlackIngress } from "../../functions/chatops/slack.ts";
import { EMPTY_ACCESS } from "../../shared/chatops/access.ts";
import { httpApiEvent, RecordingLogger, RecordingMetrics } from "../api/support.ts";

test("every chatops setting problem is reported at once, named by its variable", () => {
  assert.throws(
    () =>
      chatopsSettingsFromEnv({
        CHATOPS_ACCESS: "slack: [{ team: T1 }]",
        SLACK_RESPONSE_URL_ALLOW_HOSTS: "http://x/",
        SLACK_SIGNING_SECRET: "s",
        SLACK_SIGNING_SECRET_PARAMETER: "/a/b",
        CHATOPS_API_URL: "ftp://x",
        CHATOPS_TEAMS_BUDGET_MS: "9000",
      }),
    (error: Error) => {
      for (const part of [
        /CHATOPS_ACCESS: slack\[0\]\.channels: required/,
        /SLACK_RESPONSE_URL_ALLOW_HOSTS/,
        /both SLACK_SIGNING_SECRET and SLACK_SIGNING_SECRET_PARAMETER are set/,
        /CHATOPS_API_URL/,
        /CHATOPS_TEAMS_BUDGET_MS=9000 is out of range \(expected 500\.\.4800/,
      ])
        assert.match(error.message, part);
      assert.doesNotMatch(error.message, /"s"/, "a secret value never appears in an error");
      return true;
    },
  );
  const settings = chatopsSettingsFromEnv({});
  assert.deepEqual(settings.access, EMPTY_ACCESS, "nothing configured: deny all");
  assert.equal(settings.prefix, "/helm");
});

test("secrets: a value, an SSM name, or none; never both", async () => {
  assert.deepEqual(secretSourceFromEnv({ X: " v " }, "X", "X_PARAMETER"), { kind: "value", value: "v" });
  assert.deepEqual(secretSourceFromEnv({ X_PARAMETER: "/helm-status/prod/x" }, "X", "X_PARAMETER"), {
    kind: "ssm",
    name: "/helm-status/prod/x",
  });
  assert.throws(
    () => secretSourceFromEnv({ X_PARAMETER: "not a name!" }, "X", "X_PARAMETER"),
    /not an SSM parameter name/,
  );
  assert.equal(await secretReader({ kind: "none" })(), "");
});

test("no signing secret configured: every request is refused; an unreadable secret is a 503, logged without a value", async () => {
  const logger = new RecordingLogger();
  const body = slackCommandBody({ text: "help", responseUrl: "https://hooks.slack.com/commands/T/1/x" });
  const event = () => httpApiEvent("POST", "/chatops/slack/commands", { headers: slackHeaders("", body), body });
  const base = {
    access: EMPTY_ACCESS,
    allowHosts: [],
    queue: { send: async () => {} },
    clusterNames: () => [],
    telemetry: { logger, metrics: new RecordingMetrics() },
  };
  const none = createSlackIngress({ ...base, signingSecret: async () => "" });
  assert.equal((await none(event())).statusCode, 401);
  const broken = createSlackIngress({
    ...base,
    signingSecret: async () => {
      throw new Error("ParameterNotFound: /helm-status/prod/slack-signing-secret");
    },
  });
  const result = await broken(event());
  assert.equal(result.statusCode, 503);
  assert.match(logger.text(), /signing secret unavailable/);
});
