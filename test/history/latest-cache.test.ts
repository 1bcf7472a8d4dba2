import assert from "node:assert/strict";
import { test } from "node:test";
import { LatestSnapshotCache } from "../../shared/audit/latest-cache.ts";
import type { Snapshot } from "../../shared/snapshots/model.ts";

const snap = (name: string, seenCount = 1) =>
  ({ id: name, release: { cluster: "eu", namespace: "ns", name }, seenCount }) as unknown as Snapshot;

test("the latest-snapshot cache keeps the newest entry per release and drops the least recently written", () => {
  const cache = new LatestSnapshotCache(2);
  cache.set(snap("a"));
  cache.set(snap("b"));
  cache.set(snap("a", 2));
  cache.set(snap("c"));
  assert.equal(cache.size, 2);
  assert.equal(cache.get({ cluster: "eu", namespace: "ns", name: "b" }), undefined);
  assert.equal(cache.get({ cluster: "eu", namespace: "ns", name: "a" })?.seenCount, 2);
  assert.deepEqual([cache.hits, cache.misses], [1, 1]);
  const none = new LatestSnapshotCache(0);
  none.set(snap("a"));
  assert.equal(none.size, 0);
});
