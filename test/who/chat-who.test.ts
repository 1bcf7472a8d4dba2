/**
 * Chat names who (issue #34, docs/who.md): the history answer's WHO column and the status answer's drift, in
 * Slack's blocks and Teams' card, through the one chat use case; never an ARN or an account id, and a session
 * name with markup is escaped text. The status half runs on the simulated EKS (a real patch's managedFields).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseAccessMap, resolveAccess } from "../../shared/chatops/access.ts";
import { answerCommand, type ChatDeps } from "../../shared/chatops/answer.ts";
import { parseChatCommand } from "../../shared/chatops/command.ts";
import { slackLimitViolations } from "../../shared/chatops/limits.ts";
import { renderSlackAnswer } from "../../shared/chatops/slack-blocks.ts";
import { renderTeamsAnswer } from "../../shared/chatops/teams-card.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { silentLogger } from "../../shared/ports.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { releaseStatus } from "../../shared/usecases/status.ts";
import { MemoryAttributionStore } from "../../shared/who/memory-attribution-store.ts";
import { driftWriteSubject } from "../../shared/who/subjects.ts";
import { simConnector } from "../status/sim-connector.ts";
import { simulatedEksForFile } from "../support/sim.ts";
import { ACCOUNT, ALICE, found, HOSTILE, revisionSubject, STORE_CLOCK, webRevision, writeDrift } from "./support.ts";

const CLUSTER = "demo-us";
let now = Date.parse("2026-12-02T15:00:00Z");
const clock = { now: () => new Date(now) };
const sim = simulatedEksForFile({ clusters: [{ name: CLUSTER }], now: clock.now });
const LEAKS = new RegExp(`${ACCOUNT}|arn:aws`);
const access = resolveAccess(
  parseAccessMap(JSON.stringify({ slack: [{ team: "T1", channels: "*", clusters: "*" }] }), "test"),
  { platform: "slack", team: "T1", channel: "C1", user: "U1" },
);

async function ask(deps: ChatDeps, text: string) {
  const parsed = parseChatCommand(text, { prefix: "/helm" });
  assert.ok(parsed.ok);
  const answer = await answerCommand(deps, parsed.command, access);
  const slack = renderSlackAnswer(answer);
  assert.deepEqual(slackLimitViolations(slack), []);
  return { answer, slack: JSON.stringify(slack), teams: JSON.stringify(renderTeamsAnswer(answer)) };
}

test("the history and status answers name who, escaped, without ARN or account id", async () => {
  await writeDrift(sim().cluster(CLUSTER), (ms) => {
    now += ms;
  });
  now += 5 * 60_000;

  const store = new MemoryReleaseStore();
  await store.putRevision(CLUSTER, webRevision(1, "superseded"));
  await store.putRevision(CLUSTER, webRevision(2, "deployed"));
  const connector = simConnector(sim());
  const kube = createKubeReader({ connector, clock });
  try {
    const key = { cluster: CLUSTER, namespace: "shop", name: "web" };
    const plain = await releaseStatus({ store, kube, logger: silentLogger }, key);
    const subject = driftWriteSubject(key, plain.drift!.fields[0])!;
    const attributions = new MemoryAttributionStore(STORE_CLOCK);
    await attributions.settle([
      found(revisionSubject(CLUSTER, "shop", "web", 1), HOSTILE),
      found(revisionSubject(CLUSTER, "shop", "web", 2), { ...ALICE, name: "ci-deployer" }),
      found(subject, ALICE),
    ]);
    const deps: ChatDeps = { store, clusters: connector, clock, logger: silentLogger, kube, attributions };

    const history = await ask(deps, "history web -n shop --cluster demo-us");
    for (const shown of [history.slack, history.teams]) {
      assert.match(shown, /WHO/);
      assert.match(shown, /ci-deployer \(AWSReservedSSO_Admin_abc\)/);
      assert.match(shown, /&lt;img src=x onerror=alert\(1\)&gt;/, "markup is escaped text");
      assert.doesNotMatch(shown, /<img/);
      assert.doesNotMatch(shown, LEAKS);
    }

    const status = await ask(deps, "status web -n shop --cluster demo-us");
    assert.equal(status.answer.kind, "status");
    for (const shown of [status.slack, status.teams]) {
      assert.match(shown, /kubectl-patch by alice@example\.com/);
      assert.doesNotMatch(shown, LEAKS);
    }
  } finally {
    kube.close();
  }
});
