/** The one contract every AuditRunStore honours, run on the memory store and on DynamoDB Local. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { AuditRunStore } from "../../shared/snapshots/audit-run-store.ts";
import { run } from "./fixtures.ts";

export function auditRunContract(label: string, makeStore: () => Promise<AuditRunStore>) {
  describe(`${label}: AuditRunStore contract`, () => {
    test("a run counts only the parts its planner sent: no 'planned 2, done 5' (#25 item 3)", async () => {
      const store = await makeStore();
      const runId = `${run(Math.floor(Math.random() * 1000))}-u${process.pid % 1000}`;
      await store.startRun(runId, "2026-01-01T00:00:00.000Z");
      const tally = { done: 1, failed: 0, unhealthy: 0, changed: 0 };
      // A worker may finish a part before the planner has recorded it as sent: counted once it is.
      assert.equal(await store.completeMessage(runId, "eu-0", tally, "2026-01-01T00:00:02.000Z"), true);
      await store.recordSent(runId, [
        { id: "eu-0", releases: 1, cluster: "eu" },
        { id: "eu-1", releases: 1, cluster: "eu" },
      ]);
      await store.finishPlanning(runId, "2026-01-01T00:00:01.000Z");
      await store.completeMessage(runId, "eu-1", tally, "2026-01-01T00:00:03.000Z");
      // A message the planner never sent (forged, or from another deployment) is not counted.
      await store.completeMessage(runId, "forged-0", { ...tally, done: 3 }, "2026-01-01T00:00:04.000Z");
      const read = await store.getRun(runId);
      assert.deepEqual([read.planned, read.done, read.lastDoneAt], [2, 2, "2026-01-01T00:00:03.000Z"]);
    });

    test("audit runs: started once, messages counted once, listed newest first", async () => {
      const store = await makeStore();
      const runId = `${run(Math.floor(Math.random() * 1000))}-r${process.pid % 1000}`;
      const started = await store.startRun(runId, "2026-01-01T00:00:00.000Z");
      assert.deepEqual(started.sentParts, []);
      await store.recordSent(runId, [
        { id: "p1", releases: 10, cluster: "eu" },
        { id: "p2", releases: 3, cluster: "us" },
      ]);
      await store.recordSent(runId, [{ id: "p1", releases: 10, cluster: "eu" }]);
      const resumed = await store.startRun(runId, "2026-01-01T00:01:00.000Z");
      assert.deepEqual(resumed.sentParts.sort(), ["p1", "p2"]);
      assert.equal(resumed.startedAt, "2026-01-01T00:00:00.000Z");
      await store.finishPlanning(runId, "2026-01-01T00:00:01.000Z");
      assert.equal(
        await store.completeMessage(
          runId,
          "p1",
          { done: 9, failed: 1, unhealthy: 2, changed: 1 },
          "2026-01-01T00:00:30.000Z",
        ),
        true,
      );
      assert.equal(
        await store.completeMessage(
          runId,
          "p1",
          { done: 9, failed: 1, unhealthy: 2, changed: 1 },
          "2026-01-01T00:00:31.000Z",
        ),
        false,
      );
      const read = await store.getRun(runId);
      assert.deepEqual(
        { ...read },
        {
          runId,
          startedAt: "2026-01-01T00:00:00.000Z",
          plannedAt: "2026-01-01T00:00:01.000Z",
          planned: 13,
          clusters: ["eu", "us"],
          messages: 2,
          done: 9,
          failed: 1,
          unhealthy: 2,
          changed: 1,
          lastDoneAt: "2026-01-01T00:00:30.000Z",
          durationMs: 30_000,
        },
      );
      const later = `${run(1439)}-z${process.pid % 1000}`;
      await store.startRun(later, "2026-01-01T23:59:00.000Z");
      const listed = await store.listRuns({ limit: 1 });
      assert.equal(listed.items[0].runId, later);
      assert.ok(listed.cursor);
      await assert.rejects(store.getRun("20000101T000000Z"), { name: "AuditRunNotFoundError" });
    });

    test("audit runs: concurrent and redelivered completions each count once; a finished run reads the same listed", async () => {
      const store = await makeStore();
      const runId = `${run(Math.floor(Math.random() * 1000))}-c${process.pid % 1000}`;
      await store.startRun(runId, "2026-01-01T00:00:00.000Z");
      const parts = Array.from({ length: 12 }, (_, i) => ({ id: `k-${i}`, releases: 10, cluster: `c${i % 3}` }));
      await store.recordSent(runId, parts);
      await store.finishPlanning(runId, "2026-01-01T00:00:01.000Z");
      const tally = { done: 10, failed: 1, unhealthy: 2, changed: 0 };
      const at = (i: number) => `2026-01-01T00:00:${String(10 + i).padStart(2, "0")}.000Z`;
      // Every part twice at once (a redelivery racing the first delivery), all parts in parallel.
      const added = await Promise.all(
        parts.flatMap((part, i) => [0, 1].map(() => store.completeMessage(runId, part.id, tally, at(i)))),
      );
      assert.equal(added.filter(Boolean).length, 12);
      const expected = {
        planned: 120,
        messages: 12,
        clusters: ["c0", "c1", "c2"],
        done: 120,
        failed: 12,
        unhealthy: 24,
        changed: 0,
        lastDoneAt: at(11),
        durationMs: 21_000,
      };
      const read = await store.getRun(runId);
      assert.deepEqual(
        { ...read, runId: undefined, startedAt: undefined, plannedAt: undefined },
        {
          ...expected,
          runId: undefined,
          startedAt: undefined,
          plannedAt: undefined,
        },
      );
      // Once finished, a late redelivery adds nothing and every read agrees.
      assert.equal(await store.completeMessage(runId, "k-3", tally, "2026-01-01T00:05:00.000Z"), false);
      assert.deepEqual(await store.getRun(runId), read);
      const listed = (await store.listRuns({ limit: 100 })).items.find((r) => r.runId === runId);
      assert.deepEqual(listed, read);
    });
  });
}
