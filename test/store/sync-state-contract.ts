/**
 * SyncStateStore, one contract on both implementations (run from sync-state.test.ts on memory and
 * DynamoDB Local): object records, cursor and last run, the lease two syncs of one cluster contend for.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { SyncedObject, SyncStateStore } from "../../shared/store/sync-state.ts";
import { uniqueName } from "./fixtures.ts";

const record = (namespace: string, release: string, revision: number, rv: string): SyncedObject => ({
  object: `Secret/${namespace}/sh.helm.release.v1.${release}.v${revision}`,
  uid: `uid-${release}-${revision}`,
  resourceVersion: rv,
  namespace,
  release,
  revision,
  status: "deployed",
});

export function syncStateContract(label: string, makeStore: () => Promise<SyncStateStore>): void {
  describe(`${label}: sync state`, () => {
    test("object records: upsert, delete, per cluster; 60 at once (more than one batch)", async () => {
      const store = await makeStore();
      const [eu, us] = [uniqueName("eu"), uniqueName("us")];
      assert.deepEqual(await store.objects(eu), []);
      const many = Array.from({ length: 60 }, (_, i) => record("shop", `r${i}`, 1, String(100 + i)));
      await store.writeObjects(eu, many, []);
      await store.writeObjects(us, [record("web", "x", 1, "5")], []);
      assert.equal((await store.objects(eu)).length, 60);
      const failed = { ...record("shop", "r0", 1, "200"), error: "release payload is not valid gzip" };
      await store.writeObjects(eu, [failed], [many[1].object, many[0].object]);
      const after = await store.objects(eu);
      assert.equal(after.length, 59);
      assert.deepEqual(
        after.find((r) => r.object === failed.object),
        failed,
      );
      assert.ok(!after.some((r) => r.object === many[1].object));
      assert.deepEqual(await store.objects(us), [record("web", "x", 1, "5")]);
    });

    test("object records: the same object twice in one write (a LIST page that repeats it) is one record, the last", async () => {
      const store = await makeStore();
      const cluster = uniqueName("dup");
      const first = record("shop", "api", 1, "10");
      const second = { ...first, resourceVersion: "11", checked: true as const };
      await store.writeObjects(cluster, [first, second], [first.object, first.object]);
      assert.deepEqual(await store.objects(cluster), [second]);
    });

    test("state: cursor and last run round-trip; saving without a cursor clears it", async () => {
      const store = await makeStore();
      const cluster = uniqueName("c");
      assert.deepEqual(await store.state(cluster), {});
      const cursor = { chain: 1, scope: "*", continueToken: "eyJ2IjoxfQ", after: "shop/sh.helm.release.v1.a.v2" };
      const lastRun = {
        startedAt: "2026-12-03T12:00:00Z",
        finishedAt: "2026-12-03T12:00:09Z",
        complete: false,
        summary: { listed: 3 },
      };
      await store.saveState(cluster, { cursor, lastRun });
      assert.deepEqual(await store.state(cluster), { cursor, lastRun });
      await store.saveState(cluster, { lastRun: { ...lastRun, complete: true }, lastCompleteAt: lastRun.finishedAt });
      assert.deepEqual(await store.state(cluster), {
        lastRun: { ...lastRun, complete: true },
        lastCompleteAt: lastRun.finishedAt,
      });
    });

    test("lease: one holder at a time, renewable by its owner, free once expired or released", async () => {
      const store = await makeStore();
      const cluster = uniqueName("lease");
      assert.deepEqual(await store.acquireLease(cluster, "a", 2_000, 1_000), { acquired: true });
      const refused = await store.acquireLease(cluster, "b", 2_500, 1_500);
      assert.equal(refused.acquired, false);
      assert.deepEqual(refused.holder, { owner: "a", expiresAt: 2_000 });
      assert.deepEqual(await store.acquireLease(cluster, "a", 3_000, 1_600), { acquired: true }, "renewed");
      assert.equal((await store.acquireLease(cluster, "b", 4_000, 2_900)).acquired, false);
      // "a" was killed: its lease runs out and "b" takes it.
      assert.deepEqual(await store.acquireLease(cluster, "b", 5_000, 3_000), { acquired: true });
      await store.releaseLease(cluster, "a"); // not a's any more: a no-op
      assert.equal((await store.acquireLease(cluster, "c", 6_000, 4_000)).acquired, false);
      await store.releaseLease(cluster, "b");
      assert.deepEqual(await store.acquireLease(cluster, "c", 6_000, 4_000), { acquired: true });
      // Two at once: exactly one wins.
      const other = uniqueName("race");
      const results = await Promise.all(["x", "y", "z"].map((owner) => store.acquireLease(other, owner, 10_000, 1)));
      assert.equal(results.filter((r) => r.acquired).length, 1);
    });
  });
}
