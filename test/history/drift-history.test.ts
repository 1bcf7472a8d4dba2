import assert from "node:assert/strict";
import { test } from "node:test";
import { changesBetween, describeChange } from "../../shared/snapshots/changes.ts";
import { digestOf } from "../../shared/snapshots/digest.ts";
import type { SnapshotDrift } from "../../shared/snapshots/model.ts";
import { observe, run, uniqueRelease } from "./fixtures.ts";

// Drift in the status history: a new drifted field is a change event (and a new snapshot), one that goes back
// to the release's value is one too; the same drift seen again extends the snapshot.
const release = uniqueRelease();
const scaled: SnapshotDrift = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  name: "api",
  namespace: "shop",
  field: "spec.replicas",
  release: "2",
  live: "5",
  changedBy: "kubectl",
  subresource: "scale",
  conflicts: true,
};
const password: SnapshotDrift = {
  apiVersion: "v1",
  kind: "Secret",
  name: "creds",
  namespace: "shop",
  field: "data.password",
  live: "changed",
  changedBy: "kubectl-patch",
  changedAt: "2026-01-01T00:20:00Z",
  conflicts: true,
};

test("a field starting to drift, drifting elsewhere and coming back are change events", () => {
  const clean = observe(release, run(0), { drift: [] });
  const drifted = observe(release, run(10), { drift: [scaled, password] });
  const started = changesBetween(clean, drifted);
  assert.deepEqual(started.map(describeChange), [
    "v1/Deployment api (shop) spec.replicas drifted: 2 -> 5 by kubectl (scale), next upgrade conflicts",
    "v1/Secret creds (shop) data.password drifted: changed by kubectl-patch at 2026-01-01T00:20:00Z, next upgrade conflicts",
  ]);
  const rescaled = observe(release, run(20), { drift: [{ ...scaled, live: "7" }, password] });
  assert.deepEqual(
    changesBetween(drifted, rescaled).map((c) => [c.kind, c.subject]),
    [["drift-changed", "v1/Deployment api (shop) spec.replicas"]],
  );
  const back = observe(release, run(30), { drift: [password] });
  assert.deepEqual(
    changesBetween(rescaled, back).map((c) => c.kind),
    ["drift-resolved"],
  );
});

test("the digest follows drift (not its time); no drift leaves it as before drift existed", () => {
  const none = observe(release, run(0));
  assert.equal(digestOf(observe(release, run(0), { drift: [] })), digestOf(none));
  const drifted = digestOf(observe(release, run(0), { drift: [password] }));
  assert.notEqual(drifted, digestOf(none));
  const later = { ...password, changedAt: "2026-01-01T09:00:00Z" };
  assert.equal(digestOf(observe(release, run(5), { drift: [later] })), drifted);
});

test("drift not compared on either side is no event; an older snapshot of a deployed release counts as no drift", () => {
  const unreadable = observe(release, run(0), { error: "cluster not read" });
  assert.deepEqual(
    changesBetween(unreadable, observe(release, run(1), { drift: [scaled] })).filter((c) => c.kind.startsWith("drift")),
    [],
  );
  const beforeDrift = observe(release, run(0));
  assert.deepEqual(
    changesBetween(beforeDrift, observe(release, run(1), { drift: [scaled] })).map((c) => c.kind),
    ["drift-started"],
  );
});

test("an upgrade that adds and drops resources says which; a missing one or an unreadable cluster does not", () => {
  const before = observe(release, run(0));
  const [service, pod] = before.resources;
  const account = { ...service, kind: "ServiceAccount", name: "api-sa" };
  const upgraded = observe(release, run(10), { revision: 3, resources: [pod, account] });
  assert.deepEqual(changesBetween(before, upgraded).map(describeChange), [
    "revision 2 -> 3",
    "v1/ServiceAccount api-sa (shop) added (Current)",
    "v1/Service api (shop) removed",
  ]);
  const gone = observe(release, run(20), {
    resources: [pod],
    missing: [{ apiVersion: "v1", kind: "Service", name: "api", namespace: "shop", reason: "not found" }],
  });
  assert.deepEqual(
    changesBetween(before, gone).map((c) => c.kind),
    ["missing-added"],
  );
  const unreadable = observe(release, run(30), { resources: [], error: "cluster unreachable" });
  assert.deepEqual(
    changesBetween(before, unreadable).map((c) => c.kind),
    ["cluster-unreachable"],
  );
});
