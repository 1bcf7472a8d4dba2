/**
 * The DRIFT section names who made a write (issue #34, docs/who.md): the status reads the release's attributions
 * once, beside the store and the cluster, and CHANGED BY says `kubectl-patch by alice@example.com`; the JSON's
 * drift field carries `who` (the ARN only for the IAM audience); logging off is said once; an identity with markup
 * or control characters is text. The write happens on the simulated EKS with its real managedFields.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { silentLogger } from "../../shared/ports.ts";
import { renderStatusJson } from "../../shared/render/status/json.ts";
import { renderStatusText } from "../../shared/render/status/text.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { releaseStatus } from "../../shared/usecases/status.ts";
import type { AttributionStore, Audience } from "../../shared/who/attribution.ts";
import { MemoryAttributionStore } from "../../shared/who/memory-attribution-store.ts";
import { driftWriteSubject } from "../../shared/who/subjects.ts";
import { simConnector } from "../status/sim-connector.ts";
import { simulatedEksForFile } from "../support/sim.ts";
import { ACCOUNT, ALICE, found, HOSTILE, STORE_CLOCK, unsettled, webRevision, writeDrift } from "./support.ts";

const CLUSTER = "demo-us";
let now = Date.parse("2026-12-02T15:00:00Z");
const clock = { now: () => new Date(now) };
const sim = simulatedEksForFile({ clusters: [{ name: CLUSTER }], now: clock.now });
const key = { cluster: CLUSTER, namespace: "shop", name: "web" };

async function status(attributions: AttributionStore | undefined, audience?: Audience) {
  const store = new MemoryReleaseStore();
  await store.putRevision(CLUSTER, webRevision(1, "deployed"));
  const kube = createKubeReader({ connector: simConnector(sim()), clock });
  return releaseStatus({ store, kube, logger: silentLogger, attributions }, { ...key, audience }).finally(() =>
    kube.close(),
  );
}

let written = false;
async function patchedByKubectl() {
  if (written) return;
  written = true;
  await writeDrift(sim().cluster(CLUSTER), (ms) => {
    now += ms;
  });
  now += 5 * 60_000;
}

test("CHANGED BY names the person the audit log found for the write; public JSON without ARN, IAM JSON with", async () => {
  await patchedByKubectl();
  const plain = await status(undefined);
  const field = plain.drift?.fields[0];
  assert.equal(field?.changedBy, "kubectl-patch");
  const subject = driftWriteSubject(key, field!);
  assert.ok(subject, "a drifted field with a manager and a time is a write subject");

  const attributions = new MemoryAttributionStore(STORE_CLOCK);
  await attributions.settle([found(subject, ALICE)]);
  const report = await status(attributions);
  const text = renderStatusText(report);
  assert.match(
    text,
    /^v1\/ConfigMap +web-settings +data\.LOG_LEVEL +info -> debug +kubectl-patch by alice@example\.com +/m,
  );
  const words = (s: string) => s.replace(/ +/g, " ");
  assert.equal(
    words(text.replace(" by alice@example.com", "").replace(" (alice@example.com)", "")),
    words(renderStatusText(plain)),
    "nothing else of the status changes",
  );
  const json = renderStatusJson(report);
  assert.equal(JSON.parse(json).drift.fields[0].who.name, "alice@example.com");
  assert.doesNotMatch(json + text, new RegExp(`${ACCOUNT}|arn:aws`), "no account id or ARN by default");

  const iam = JSON.parse(renderStatusJson(await status(attributions, "iam")));
  assert.equal(iam.drift.fields[0].who.arn, ALICE.arn, "the IAM-signed JSON keeps the ARN");
});

test("a hostile session name is text; pending names nobody; logging off (as the worker settles it) is said once", async () => {
  await patchedByKubectl();
  const plain = await status(undefined);
  const subject = driftWriteSubject(key, plain.drift!.fields[0])!;
  const attributions = new MemoryAttributionStore(STORE_CLOCK);
  await attributions.settle([found(subject, HOSTILE)]);
  const text = renderStatusText(await status(attributions));
  assert.ok(!text.includes("\u001b"), "no ESC reaches the terminal");
  assert.match(text, /kubectl-patch by <img src=x onerror=alert\(1\)>\^\[\[31m\.\.\. /);

  const pending = new MemoryAttributionStore(STORE_CLOCK);
  await pending.enqueue([subject], new Date(now));
  const waiting = await status(pending);
  assert.equal(waiting.drift?.fields[0].who?.state, "pending");
  assert.match(renderStatusText(waiting), / kubectl-patch +2026-12-02T15:30:00Z/, "pending: the program only");

  // What the worker settles when the cluster's logging is off: the write logging-off, the hint as its reason.
  const off = new MemoryAttributionStore(STORE_CLOCK);
  await off.settle([unsettled(subject, "logging-off", "aws eks update-cluster-config --name demo-us --logging ...")]);
  const report = await status(off);
  assert.equal(report.drift?.fields[0].who?.state, "logging-off");
  const offText = renderStatusText(report);
  assert.equal(offText.match(/audit logs are off/g)?.length, 1);
  assert.match(offText, /^WHO: audit logs are off for demo-us: aws eks update-cluster-config --name demo-us/m);
  assert.match(offText, / kubectl-patch +2026-12-02T15:30:00Z/, "logging off: the program only");
  assert.equal(JSON.parse(renderStatusJson(report)).auditLogging, report.auditLogging);
});
