/**
 * The Block Kit renderer on synthetic reports built to break it: many groups,
 * long names, Slack control characters in cluster-provided text. Every message
 * must pass the same limit check the loopback receiver applies.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ChatAnswer } from "../../shared/chatops/answer.ts";
import { slackLimitViolations, TEAMS_MAX_TEXT } from "../../shared/chatops/limits.ts";
import { renderSlackAnswer } from "../../shared/chatops/slack-blocks.ts";
import { renderTeamsAnswer } from "../../shared/chatops/teams-card.ts";
import { renderStatusText, storedLine } from "../../shared/render/status/text.ts";
import type { StatusReport } from "../../shared/status/report.ts";
import { describeFreshness } from "../../shared/sync/freshness.ts";
import { column, syntheticReport } from "../support/synthetic-report.ts";

const answer = (r: StatusReport): ChatAnswer => ({
  kind: "status",
  target: { verb: "status", cluster: "prod-eu", namespace: "shop", release: "huge" },
  report: r,
});

test("any size of release fits Slack's limits; what is left out is counted and the API path given", () => {
  for (const [kinds, perKind, nameLength] of [
    [1, 1, 10],
    [3, 300, 20],
    [60, 40, 60],
    [120, 5, 250],
  ]) {
    const message = renderSlackAnswer(answer(syntheticReport(kinds, perKind, nameLength)), {
      apiBaseUrl: "https://api.example.com/",
    });
    assert.deepEqual(slackLimitViolations(message), [], `${kinds} kinds x ${perKind}`);
    const all = JSON.stringify(message.blocks);
    assert.match(all, /GET https:\/\/api\.example\.com\/clusters\/prod-eu\/namespaces\/shop\/releases\/huge\/status/);
    if (kinds * perKind > 100) assert.match(all, /…and \d+ more/);
    assert.match(all, /not read in time/);
  }
});

test("nothing left out, nothing said: related pods with no rows are not '…and 0 more resources in 1 groups' (#25)", () => {
  const r = syntheticReport(1, 1);
  r.relatedPods = [
    { namespace: "shop", selector: { app: "x" }, columns: [column("Name")], rows: [], objects: [], listMetadata: {} },
  ];
  const all = JSON.stringify(renderSlackAnswer(answer(r)).blocks);
  assert.doesNotMatch(all, /…and 0 more|more resources? in \d+ groups?/);
});

test("cluster-provided text cannot ping a channel or break out of a code block", () => {
  const message = renderSlackAnswer(answer(syntheticReport(8, 2)));
  const all = JSON.stringify(message.blocks);
  assert.doesNotMatch(all, /<!channel>|<!here>/);
  assert.match(all, /&lt;!channel&gt;/);
  assert.match(all, /&lt;!here&gt;/);
});

test("unhealthy groups and MISSING come first, rows marked", () => {
  const message = renderSlackAnswer(answer(syntheticReport(8, 3)));
  const sections = message.blocks.flatMap((b) => (b.type === "section" && b.text ? [b.text.text] : []));
  assert.match(sections[0], /Needs attention/);
  assert.match(sections[0], /ConfigMap\s+gone\s+MISSING/);
  assert.match(sections[1], /:warning: \*v1\/Kind0\*/);
  assert.match(sections[1], /\n! r0-0-/);
  assert.match(sections[2], /:warning: \*v1\/Kind7\*/);
  assert.match(sections[3], /^\*v1\/Kind1\*/);
});

test("Teams text is Markdown within its cap", () => {
  const message = renderTeamsAnswer(answer(syntheticReport(60, 40, 60)));
  assert.equal(message.type, "message");
  assert.ok(message.text.length <= TEAMS_MAX_TEXT);
  assert.match(message.text, /cut at 20000 characters/);
  assert.match(message.text, /GET \/clusters\/prod-eu\/namespaces\/shop\/releases\/huge\/status/);
});

test("the STORED line (the report's freshness) shows in Slack and Teams as in the text, and only when checked", () => {
  const fresh = syntheticReport(2, 2);
  fresh.freshness = describeFreshness({ stored: 6, answered: 7, check: { revisions: { latest: 7 } } });
  const line = storedLine(fresh.freshness);
  assert.match(line, /^STORED: .*7/);
  assert.ok(renderStatusText(fresh).includes(`${line}\n`));
  const slackContexts = (r: StatusReport) =>
    renderSlackAnswer(answer(r)).blocks.flatMap((b) =>
      b.type === "context" ? (b.elements ?? []).map((e) => (e as { text: string }).text) : [],
    );
  assert.ok(slackContexts(fresh).includes(line), JSON.stringify(slackContexts(fresh)));
  assert.equal(renderTeamsAnswer(answer(fresh)).text.split(line).length, 2, "once in Teams");

  const unchecked = syntheticReport(2, 2);
  assert.equal(unchecked.freshness, undefined);
  assert.ok(!slackContexts(unchecked).some((t) => t.includes("STORED")));
  assert.doesNotMatch(renderTeamsAnswer(answer(unchecked)).text, /STORED/);
});
