/**
 * recordObservation with a stale hint (the worker's cached latest snapshot, another worker having written
 * since), on both stores: the conditional writes refuse it, the store is read again, nothing is lost or
 * doubled. Run from memory-snapshot-store.test.ts and dynamodb-snapshot-store.test.ts.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { recordObservation } from "../../shared/audit/record.ts";
import type { Snapshot } from "../../shared/snapshots/model.ts";
import type { SnapshotStore } from "../../shared/snapshots/snapshot-store.ts";
import { NOW, observe, run, uniqueRelease } from "./fixtures.ts";

export function staleHintContract(label: string, makeStore: () => Promise<SnapshotStore>): void {
  describe(`${label}: a stale cached latest snapshot`, () => {
    test("an extend of a snapshot that is no longer the latest is refused; the change is written against the real latest", async () => {
      const store = await makeStore();
      const release = uniqueRelease();
      const first = await recordObservation(store, observe(release, run(0)), 90);
      // Another worker (no cache) saw the release fail: a new latest.
      const failed = await recordObservation(store, observe(release, run(5), { podHealth: "Failed" }), 90);
      // This worker still holds the first snapshot, whose digest equals its (healthy) observation.
      const hint = { latest: Promise.resolve(first.snapshot) };
      const healthy = await recordObservation(store, observe(release, run(10)), 90, hint);
      assert.equal(healthy.outcome, "created");
      assert.equal(healthy.snapshot.previousId, failed.snapshot.id);
      const listed = (await store.list(release, {}, NOW)).items;
      assert.deepEqual(
        listed.map((s) => [s.id, s.seenCount]),
        [
          [healthy.snapshot.id, 1],
          [failed.snapshot.id, 1],
          [first.snapshot.id, 1],
        ],
      );
    });

    test("a duplicate the hint suggests is confirmed by reading the store", async () => {
      const store = await makeStore();
      const release = uniqueRelease();
      const first = await recordObservation(store, observe(release, run(0)), 90);
      const wrong: Snapshot = { ...first.snapshot, lastRunId: run(99) };
      const next = await recordObservation(store, observe(release, run(5)), 90, { latest: Promise.resolve(wrong) });
      assert.equal(next.outcome, "extended");
      assert.equal((await store.latest(release))?.seenCount, 2);
    });
  });
}
