/**
 * Why a release was failing, kept in the history (issue #33 item 3): the cause chains ride in the snapshot, so the
 * status as it was says why long after kube-apiserver dropped the events; restarts and ages do not start a new
 * snapshot, another reason or exit code does, and the health-change message says why.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { recordObservation } from "../../shared/audit/record.ts";
import { changeMessage } from "../../shared/notify/slack-webhook.ts";
import { describeChange } from "../../shared/snapshots/changes.ts";
import { MemorySnapshotStore } from "../../shared/snapshots/memory-snapshot-store.ts";
import type { Cause } from "../../shared/why/causes.ts";
import { observe, run, uniqueRelease } from "./fixtures.ts";

function crashCause(exitCode: number, restarts: number, ago: string, pod = "api-1"): Cause {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    name: "api",
    namespace: "shop",
    health: "Failed",
    pods: [
      {
        pod,
        namespace: "shop",
        phase: "Running",
        containers: [
          {
            container: "api",
            init: false,
            restarts,
            ready: false,
            waiting: { reason: "CrashLoopBackOff" },
            lastTerminated: { reason: exitCode === 137 ? "OOMKilled" : "Error", exitCode },
          },
        ],
      },
    ],
    podsWithProblems: 1,
    text: `Deployment api Failed → pod ${pod} → container api CrashLoopBackOff, last terminated Error, exit code ${exitCode}, ${ago} ago, ${restarts} restarts`,
  };
}

test("a cause is kept with the snapshot; restarts, ages and a new pod name extend it; another exit code is a change", async () => {
  const store = new MemorySnapshotStore();
  const release = uniqueRelease();
  await recordObservation(store, observe(release, run(0)), 90);
  const failing = await recordObservation(
    store,
    observe(release, run(5), { podHealth: "Failed", causes: [crashCause(1, 5, "2m")] }),
    90,
  );
  assert.equal(failing.outcome, "created");
  assert.deepEqual(failing.snapshot.changes.filter((c) => c.kind === "cause").map(describeChange), [
    "why: Deployment api Failed → pod api-1 → container api CrashLoopBackOff, last terminated Error, exit code 1, 2m ago, 5 restarts",
  ]);
  const stored = await store.get(failing.snapshot.id, new Date("2026-01-01T01:00:00Z"));
  assert.equal(stored.causes?.[0].pods[0].containers[0].lastTerminated?.exitCode, 1);

  const ticking = await recordObservation(
    store,
    observe(release, run(10), { podHealth: "Failed", restarts: "7", causes: [crashCause(1, 7, "30s", "api-2")] }),
    90,
  );
  assert.equal(ticking.outcome, "extended");

  const oom = await recordObservation(
    store,
    observe(release, run(15), { podHealth: "Failed", causes: [crashCause(137, 8, "10s")] }),
    90,
  );
  assert.equal(oom.outcome, "created");
  assert.deepEqual(
    oom.snapshot.changes.map((c) => c.kind),
    ["cause"],
  );
});

test("the health-change message says why under the change list, the cause not listed twice", async () => {
  const store = new MemorySnapshotStore();
  const release = uniqueRelease();
  const healthy = await recordObservation(store, observe(release, run(0)), 90);
  const failing = await recordObservation(
    store,
    observe(release, run(5), { podHealth: "Failed", causes: [crashCause(1, 5, "2m")] }),
    90,
  );
  const message = JSON.stringify(changeMessage(failing.snapshot, healthy.snapshot));
  assert.match(
    message,
    /\*Why\*\\n• Deployment api Failed → pod api-1 → container api CrashLoopBackOff, last terminated Error, exit code 1/,
  );
  assert.doesNotMatch(message, /why: /);
});
