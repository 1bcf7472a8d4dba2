/**
 * What a chat answer may say when AWS refuses or cannot be reached (issue #25 item 3): the API's public message,
 * never IAM ARNs, account ids or EKS endpoint URLs — in Slack's blocks (also `--public` answers, which are the
 * same blocks in_channel) and Teams' card; the full text goes to the log. The errors are built by the product's
 * own AWS error classifier (shared/eks/aws-calls.ts toClusterError) from AWS's exception shapes.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ATTACK_RELEASE, AWS_ENTRY, AWS_INTERNALS, awsFailures } from "../../bench/attack-fixtures.ts";
import { parseAccessMap, resolveAccess } from "../../shared/chatops/access.ts";
import { answerCommand } from "../../shared/chatops/answer.ts";
import { parseChatCommand } from "../../shared/chatops/command.ts";
import { renderSlackAnswer } from "../../shared/chatops/slack-blocks.ts";
import { renderTeamsAnswer } from "../../shared/chatops/teams-card.ts";
import type { ClusterConnector } from "../../shared/clusters/connector.ts";
import { toClusterError } from "../../shared/eks/aws-calls.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { type Clock, type Logger, systemClock } from "../../shared/ports.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { bodyText, httpApiEvent, lambdaContext, testApiHandler } from "../api/support.ts";

const ENTRY = AWS_ENTRY;
const EKS_URL = "https://eks.eu-west-1.amazonaws.com";
const LEAKS = AWS_INTERNALS;
const awsFailureCases = awsFailures();
const release = ATTACK_RELEASE;

function failingConnector(error: unknown): ClusterConnector {
  return {
    list: () => [{ name: "prod-eu", region: "eu-west-1" }],
    access: async () => {
      throw toClusterError(ENTRY, "AssumeRole", EKS_URL, 3000, error);
    },
    invalidate: () => {},
  };
}

function recordingLogger(): Logger & { text(): string } {
  const lines: unknown[] = [];
  const push = (message: string, attributes?: Record<string, unknown>) => lines.push({ message, attributes });
  return { debug: push, info: push, warn: push, error: push, text: () => JSON.stringify(lines) };
}

for (const [what, failure] of awsFailureCases) {
  test(`${what}: Slack, public and Teams answers say the API's public message; the log has AWS's text`, async () => {
    const store = new MemoryReleaseStore();
    await store.putRevision("prod-eu", release);
    const clusters = failingConnector(failure);
    const logger = recordingLogger();
    const clock: Clock = systemClock;
    const kube = createKubeReader({ connector: clusters, clock });
    const access = resolveAccess(
      parseAccessMap(JSON.stringify({ slack: [{ team: "T1", channels: "*", clusters: "*" }] }), "test"),
      { platform: "slack", team: "T1", channel: "C1", user: "U1" },
    );
    try {
      const parsed = parseChatCommand("status api -n shop --cluster prod-eu", { prefix: "/helm" });
      assert.ok(parsed.ok);
      const answer = await answerCommand({ store, clusters, clock, logger, kube }, parsed.command, access);
      assert.equal(answer.kind, "error");
      const shown = JSON.stringify([renderSlackAnswer(answer), renderTeamsAnswer(answer)]);
      assert.doesNotMatch(shown, LEAKS, shown);
      assert.match(shown, /prod-eu/, "the answer still names the cluster");
      assert.match(logger.text(), LEAKS, "the log keeps AWS's full text");

      // The API answers the same public message.
      const api = testApiHandler({
        store,
        clusters,
        kube,
        clock,
      });
      const answered = await api(
        httpApiEvent("GET", "/clusters/prod-eu/namespaces/shop/releases/api/status"),
        lambdaContext(),
      );
      const body = JSON.parse(bodyText(answered)) as { error: { message: string } };
      assert.doesNotMatch(body.error.message, LEAKS, body.error.message);
      assert.ok(answer.kind === "error" && answer.message === body.error.message, "chat and API say the same");
    } finally {
      await kube.close();
    }
  });
}
