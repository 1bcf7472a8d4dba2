/**
 * The fleet's counts join at fleet size (issue #36, docs/scale.md "Fixes"), counted on the memory stores: the
 * per-cluster Queries of 200 clusters run 16 at a time, not all at once; and the FLEET index is read to its end
 * however many pages it takes (a store's pages may be short: DynamoDB's are at most 1 MB), where it used to stop
 * at 100 pages and count every audited release past them NotAudited. And the page's rows without counts come from
 * the FLEET index with a registry past DynamoDB's IN (100 clusters), where they used to take the whole join.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { recordObservation } from "../../shared/audit/record.ts";
import { registryScope } from "../../shared/clusters/scope.ts";
import { MemorySnapshotStore } from "../../shared/snapshots/memory-snapshot-store.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { fleetReleases } from "../../shared/usecases/fleet.ts";
import { observe, run } from "../history/fixtures.ts";
import { makeRelease } from "../store/fixtures.ts";

const NOW = new Date("2026-01-01T12:00:00Z");

test("200 clusters of one audited release each: 16 Queries at once, and all 200 counted Current", async () => {
  const store = new MemoryReleaseStore();
  const snapshots = new MemorySnapshotStore();
  const names = Array.from({ length: 200 }, (_, i) => `c${String(i).padStart(3, "0")}`);
  for (const cluster of names) {
    await store.putRevision(cluster, makeRelease({ name: "app", namespace: "shop" }));
    await recordObservation(snapshots, observe({ cluster, namespace: "shop", name: "app" }, run(0)), 90);
  }
  const counts = { listings: 0, inFlight: 0, maxInFlight: 0, fleetPages: 0 };
  const listReleases = store.listReleases.bind(store);
  store.listReleases = async (filter, page) => {
    counts.listings++;
    counts.maxInFlight = Math.max(counts.maxInFlight, ++counts.inFlight);
    try {
      await new Promise((resolve) => setImmediate(resolve));
      return await listReleases(filter, page);
    } finally {
      counts.inFlight--;
    }
  };
  // Short pages, as a big index gives them: one entry each.
  const fleet = snapshots.fleet.bind(snapshots);
  snapshots.fleet = async (filter, now) => {
    counts.fleetPages++;
    return fleet({ ...filter, limit: 1 }, now);
  };
  const deps = {
    store,
    snapshots,
    clusters: registryScope(names.map((name) => ({ name, region: "us-east-1" }))),
    clock: { now: () => NOW },
  };
  const page = await fleetReleases(deps, { limit: 10 }, { join: true });
  assert.equal(counts.listings, 200);
  assert.equal(counts.maxInFlight, 16, "before: 200 at once");
  assert.equal(page.counts.Current, 200, "before: 100 (the index read stopped at 100 pages)");
  assert.equal(page.counts.NotAudited, 0);
  assert.equal(counts.fleetPages, 200);
});

test("a registry of 150 clusters: the page's rows come from the index, not the join (no listing read)", async () => {
  const store = new MemoryReleaseStore();
  const snapshots = new MemorySnapshotStore();
  const names = Array.from({ length: 150 }, (_, i) => `c${String(i).padStart(3, "0")}`);
  for (const cluster of names) {
    for (const name of ["api", "web"]) {
      await store.putRevision(cluster, makeRelease({ name, namespace: "shop" }));
      await recordObservation(snapshots, observe({ cluster, namespace: "shop", name }, run(0)), 90);
    }
  }
  const counts = { listings: 0, indexReads: 0 };
  const listReleases = store.listReleases.bind(store);
  store.listReleases = async (filter, page) => {
    counts.listings++;
    return listReleases(filter, page);
  };
  const fleet = snapshots.fleet.bind(snapshots);
  snapshots.fleet = async (filter, now) => {
    counts.indexReads++;
    return fleet(filter, now);
  };
  const deps = {
    store,
    snapshots,
    clusters: registryScope(names.map((name) => ({ name, region: "us-east-1" }))),
    clock: { now: () => NOW },
  };
  const page = await fleetReleases(deps, { limit: 50, counts: false });
  assert.equal(page.releases.length, 50);
  assert.equal(page.releases[0].cluster, "c000");
  assert.ok(page.cursor);
  assert.equal(counts.listings, 0, "before: 150 (one listing Query per cluster: the whole join)");
  assert.equal(counts.indexReads, 1);
});
