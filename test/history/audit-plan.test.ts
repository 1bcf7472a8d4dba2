/**
 * The planner's packing (memory stores, the in-process queue): messages alternate between clusters so a
 * worker's batch spans them, every release is in exactly one message, and a resumed run skips sent parts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { arrayAuditQueue } from "../../shared/audit/sqs-audit-queue.ts";
import { registryScope } from "../../shared/clusters/scope.ts";
import { silentLogger } from "../../shared/ports.ts";
import { MemoryAuditRuns } from "../../shared/snapshots/memory-audit-runs.ts";
import { MemoryRollups } from "../../shared/snapshots/memory-small-stores.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { interleave, planAudit } from "../../shared/usecases/audit-plan.ts";
import { makeRelease } from "../store/fixtures.ts";

const clock = { now: () => new Date("2026-01-01T00:05:00Z") };

async function storeWith(counts: Record<string, number>) {
  const store = new MemoryReleaseStore();
  for (const [cluster, count] of Object.entries(counts)) {
    for (let i = 0; i < count; i++) await store.putRevision(cluster, makeRelease({ name: `r${i}`, namespace: "ns" }));
  }
  return store;
}

test("interleave takes the lists in turn and keeps every element once", () => {
  assert.deepEqual(interleave([["a0", "a1", "a2"], ["b0"], [], ["c0", "c1"]]), ["a0", "b0", "c0", "a1", "c1", "a2"]);
  assert.deepEqual(interleave([]), []);
});

test("the planner's messages alternate clusters, each release planned once", async () => {
  const store = await storeWith({ eu: 25, us: 12, ap: 3 });
  const queue = arrayAuditQueue();
  // The planner needs the audit runs only.
  const deps = {
    store,
    auditRuns: new MemoryAuditRuns(new MemoryRollups()),
    queue,
    clusters: registryScope(["eu", "us", "ap"].map((name) => ({ name, region: "eu-west-1" }))),
    clock,
    logger: silentLogger,
  };
  const plan = await planAudit(deps, { runId: "20260101T000500Z", releasesPerMessage: 10 });
  assert.deepEqual(
    queue.messages.map((m) => m.part),
    ["ap-0", "eu-0", "us-0", "eu-1", "us-1", "eu-2"],
  );
  const planned = queue.messages.flatMap((m) => m.releases.map((r) => `${m.cluster}/${r.name}`));
  assert.equal(new Set(planned).size, 40);
  assert.equal(plan.run.planned, 40);
  assert.equal(plan.run.messages, 6);
  const again = await planAudit(deps, { runId: "20260101T000500Z", releasesPerMessage: 10 });
  assert.equal(again.alreadyPlanned, true);
  assert.equal(queue.messages.length, 6);
});
