import assert from "node:assert/strict";
import { test } from "node:test";
import { podFor } from "../../local/sim/pods.ts";

const NOW = new Date("2026-12-02T15:10:00Z");
const template = { metadata: { labels: { app: "api" } }, spec: { containers: [{ name: "api", image: "api:2" }] } };

function lastCrash(createdAt: Date) {
  const pod = podFor({ name: "api-1", namespace: "shop", template, health: "crashLoop", createdAt, now: NOW });
  const { startedAt, finishedAt } = pod.status.containerStatuses[0].lastState.terminated;
  return { created: pod.metadata.creationTimestamp, startedAt, finishedAt };
}

test("a CrashLoopBackOff pod's last crash is 2m14s ago when the pod is older than that", () => {
  assert.deepEqual(lastCrash(new Date(NOW.getTime() - 3 * 3600_000)), {
    created: "2026-12-02T12:10:00Z",
    startedAt: "2026-12-02T15:07:45Z",
    finishedAt: "2026-12-02T15:07:46Z",
  });
});

test("a CrashLoopBackOff pod never restarted before it was created, nor in the future", () => {
  for (const ageMs of [0, 500, 30_000, 134_500]) {
    const { created, startedAt, finishedAt } = lastCrash(new Date(NOW.getTime() - ageMs));
    assert.ok(created <= startedAt && startedAt <= finishedAt, `age ${ageMs}: ${created} ${startedAt} ${finishedAt}`);
    assert.ok(Date.parse(finishedAt) <= NOW.getTime(), `age ${ageMs}: finished ${finishedAt} after now`);
  }
});
