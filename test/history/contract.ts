/**
 * The one contract every SnapshotStore honours (with recordObservation, the rules on top),
 * run on the memory store and on DynamoDB Local. `makeStore` returns a fresh store. The history's other ports have
 * theirs beside it: audit-run-contract.ts, rollup-contract.ts, small-stores-contract.ts.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { recordObservation } from "../../shared/audit/record.ts";
import { runIdTime } from "../../shared/snapshots/model.ts";
import { TRUNCATION_MARKER } from "../../shared/snapshots/snapshot-codec.ts";
import type { SnapshotStore } from "../../shared/snapshots/snapshot-store.ts";
import { NOW, observe, run, uniqueRelease } from "./fixtures.ts";

export interface ContractHooks {
  /** Damages a stored snapshot so it no longer reads back. */
  corrupt(store: SnapshotStore, id: string): Promise<void>;
}

export function snapshotStoreContract(label: string, makeStore: () => Promise<SnapshotStore>, hooks: ContractHooks) {
  describe(`${label}: SnapshotStore contract`, () => {
    test("run-length history: equal digests extend the latest snapshot, a change writes a new one with its changes", async () => {
      const store = await makeStore();
      const release = uniqueRelease();
      const first = await recordObservation(store, observe(release, run(0)), 90);
      assert.equal(first.outcome, "created");
      assert.deepEqual(first.snapshot.changes, [{ kind: "first-seen", to: "Current" }]);
      for (let i = 1; i <= 3; i++) {
        // Restart counts and "ago" cells tick by themselves: not a change.
        const again = await recordObservation(
          store,
          observe(release, run(i * 5), { restarts: `${i} (2m${i}s ago)` }),
          90,
        );
        assert.equal(again.outcome, "extended");
      }
      const latest = await store.latest(release);
      assert.equal(latest?.seenCount, 4);
      assert.equal(latest?.lastSeenAt, "2026-01-01T00:15:00.000Z");
      assert.equal(latest?.firstSeenAt, "2026-01-01T00:00:00.000Z");
      const broken = await recordObservation(store, observe(release, run(20), { podHealth: "Failed" }), 90);
      assert.equal(broken.outcome, "created");
      assert.equal(broken.snapshot.previousId, first.snapshot.id);
      assert.deepEqual(broken.snapshot.changes, [
        { kind: "health", from: "Current", to: "Failed" },
        { kind: "resource-health", subject: "v1/Pod api-1 (shop)", from: "Current", to: "Failed" },
      ]);
      const page = await store.list(release, {}, NOW);
      assert.deepEqual(
        page.items.map((s) => [s.id, s.seenCount, s.health.overall]),
        [
          [broken.snapshot.id, 1, "Failed"],
          [first.snapshot.id, 4, "Current"],
        ],
      );
      assert.equal(page.cursor, undefined);
    });

    test("idempotent per (runId, release): a redelivery, a rerun or an older run writes nothing", async () => {
      const store = await makeStore();
      const release = uniqueRelease();
      await recordObservation(store, observe(release, run(0)), 90);
      await recordObservation(store, observe(release, run(5)), 90);
      assert.equal((await recordObservation(store, observe(release, run(5)), 90)).outcome, "duplicate");
      assert.equal((await recordObservation(store, observe(release, run(0)), 90)).outcome, "duplicate");
      // A different observation under an already applied run id is still a duplicate (at-least-once delivery).
      const late = await recordObservation(store, observe(release, run(5), { podHealth: "Failed" }), 90);
      assert.equal(late.outcome, "duplicate");
      assert.equal((await store.latest(release))?.seenCount, 2);
      assert.equal((await store.list(release, {}, NOW)).items.length, 1);
    });

    test("a run id from the future does not freeze the release: later sightings still extend and change it (#25 item 2)", async () => {
      const store = await makeStore();
      const release = uniqueRelease();
      await recordObservation(store, observe(release, run(0)), 90);
      // What a forged 2099 message did before the worker refused such run ids: extended the latest at the
      // worker's own time (run 1's), leaving lastRunId in 2099.
      const forged = observe(release, "20990101T000000Z", { observedAt: runIdTime(run(1)).toISOString() });
      assert.equal((await recordObservation(store, forged, 90)).outcome, "extended");
      assert.equal((await store.latest(release))?.lastRunId, "20990101T000000Z");
      // Later real runs, by the workers' clocks, are later sightings: not "older runs".
      const next = await recordObservation(store, observe(release, run(5)), 90);
      assert.equal(next.outcome, "extended");
      assert.equal((await recordObservation(store, observe(release, run(5)), 90)).outcome, "duplicate");
      const broken = await recordObservation(store, observe(release, run(10), { podHealth: "Failed" }), 90);
      assert.equal(broken.outcome, "created");
      const latest = await store.latest(release);
      assert.equal(latest?.health.overall, "Failed");
      assert.equal(latest?.lastRunId, run(10));
      // An observation made before the latest sighting (a slower worker of another run) changes nothing.
      const stale = observe(release, run(12), { observedAt: runIdTime(run(8)).toISOString(), podHealth: "Failed" });
      assert.equal((await recordObservation(store, stale, 90)).outcome, "duplicate");
    });

    test("concurrent deliveries of one message apply it once", async () => {
      const store = await makeStore();
      const release = uniqueRelease();
      await recordObservation(store, observe(release, run(0)), 90);
      const outcomes = await Promise.all(
        Array.from({ length: 4 }, () =>
          recordObservation(store, observe(release, run(5), { podHealth: "Failed" }), 90),
        ),
      );
      assert.deepEqual(outcomes.map((o) => o.outcome).sort(), ["created", "duplicate", "duplicate", "duplicate"]);
      const firsts = await Promise.all(
        Array.from({ length: 3 }, () => recordObservation(store, observe(uniqueRelease("x"), run(0)), 90)),
      );
      assert.ok(firsts.every((o) => o.outcome === "created"));
      assert.equal((await store.list(release, {}, NOW)).items.length, 2);
    });

    test("get returns the status text; a text over the budget is stored truncated with a marker", async () => {
      const store = await makeStore();
      const release = uniqueRelease();
      const { randomBytes } = await import("node:crypto");
      const huge = `NAME: x\n${randomBytes(600 * 1024).toString("base64")}`;
      const result = await recordObservation(store, observe(release, run(0), { text: huge }), 90);
      const read = await store.get(result.snapshot.id, NOW);
      assert.equal(read.resources.length, 2);
      if (read.textTruncated) {
        assert.ok(read.text!.endsWith(TRUNCATION_MARKER));
        assert.ok(huge.startsWith(read.text!.slice(0, read.text!.length - TRUNCATION_MARKER.length)));
      } else {
        assert.equal(read.text, huge);
      }
      const small = await recordObservation(store, observe(uniqueRelease(), run(0)), 90);
      assert.equal(
        (await store.get(small.snapshot.id, NOW)).text,
        `NAME: ${small.snapshot.release.name}\nHEALTH: Current\n`,
      );
      await assert.rejects(store.get(`${release.cluster}.${release.namespace}.${release.name}@${run(99)}`, NOW), {
        name: "SnapshotNotFoundError",
      });
      await assert.rejects(store.get("no-id-at-all", NOW), { name: "InvalidSnapshotIdError" });
    });

    test("the own-namespace text (objects outside the release's namespace read) is kept beside the text, read by get only", async () => {
      const store = await makeStore();
      const release = uniqueRelease();
      const { randomBytes } = await import("node:crypto");
      const ownText = `NAME: x\nOUTSIDE ACCESS: 1 resource\n${randomBytes(400 * 1024).toString("base64")}`;
      const result = await recordObservation(store, observe(release, run(0), { ownText, text: ownText }), 90);
      assert.equal("ownText" in result.snapshot, false, "the recorded snapshot carries no text");
      const read = await store.get(result.snapshot.id, NOW);
      assert.ok(read.ownText?.startsWith("NAME: x\nOUTSIDE ACCESS: 1 resource\n"), "both texts fit the one item");
      assert.equal("ownText" in ((await store.latest(release)) ?? {}), false);
      assert.equal("ownText" in (await store.list(release, {}, NOW)).items[0], false);
      const without = await recordObservation(store, observe(uniqueRelease(), run(0)), 90);
      assert.equal((await store.get(without.snapshot.id, NOW)).ownText, undefined);
    });

    test("retention: expired snapshots are hidden from reads before TTL deletes them", async () => {
      const store = await makeStore();
      const release = uniqueRelease(`ttl${process.pid}${Math.floor(Math.random() * 1e6)}`);
      const old = await recordObservation(store, observe(release, run(0)), 1);
      const later = new Date(Date.parse("2026-01-01T00:00:00Z") + 2 * 86_400_000);
      await assert.rejects(store.get(old.snapshot.id, later), { name: "SnapshotNotFoundError" });
      assert.equal((await store.list(release, {}, later)).items.length, 0);
      assert.equal((await store.fleet({ cluster: release.cluster }, later)).items.length, 0);
      // The release is seen again long after: a fresh history (first-seen), one latest in the fleet view.
      const again = await recordObservation(store, observe(release, "20260103T000000Z"), 1);
      assert.equal(again.outcome, "created");
      assert.deepEqual(again.snapshot.changes, [{ kind: "first-seen", to: "Current" }]);
      const fleet = await store.fleet({ cluster: release.cluster }, new Date("2026-01-03T01:00:00Z"));
      assert.equal(fleet.items.filter((e) => e.release.name === release.name).length, 1);
    });

    test("list filters by since/until and pages with a cursor bound to its listing", async () => {
      const store = await makeStore();
      const release = uniqueRelease();
      for (let i = 0; i < 5; i++) {
        await recordObservation(store, observe(release, run(i * 10), { podHealth: i % 2 ? "Failed" : "Current" }), 90);
      }
      const first = await store.list(release, { limit: 2 }, NOW);
      assert.equal(first.items.length, 2);
      assert.ok(first.cursor);
      const second = await store.list(release, { limit: 2, cursor: first.cursor }, NOW);
      const third = await store.list(release, { limit: 2, cursor: second.cursor }, NOW);
      assert.deepEqual(
        [...first.items, ...second.items, ...third.items].map((s) => s.runId),
        [run(40), run(30), run(20), run(10), run(0)],
      );
      assert.equal(third.cursor, undefined);
      const window = await store.list(
        release,
        { since: new Date("2026-01-01T00:15:00Z"), until: new Date("2026-01-01T00:30:00Z") },
        NOW,
      );
      assert.deepEqual(
        window.items.map((s) => s.runId),
        [run(30), run(20)],
      );
      await assert.rejects(store.list(uniqueRelease(), { cursor: first.cursor }, NOW), { name: "InvalidCursorError" });
      await assert.rejects(store.list(release, { cursor: "garbage!" }, NOW), { name: "InvalidCursorError" });
    });

    test("fleet: the latest health of each release, worst first, filtered by health and cluster, paged", async () => {
      const store = await makeStore();
      const cluster = `fleet${process.pid}${Math.floor(Math.random() * 1e6)}`;
      const healthy = { ...uniqueRelease(cluster), name: "a-healthy" };
      const broken = { ...uniqueRelease(cluster), name: "b-broken" };
      const recovered = { ...uniqueRelease(cluster), name: "c-recovered" };
      await recordObservation(store, observe(healthy, run(0)), 90);
      await recordObservation(store, observe(broken, run(0), { podHealth: "Failed" }), 90);
      await recordObservation(store, observe(recovered, run(0), { podHealth: "Failed" }), 90);
      await recordObservation(store, observe(recovered, run(5)), 90);
      await recordObservation(store, observe(uniqueRelease(`${cluster}x`), run(0), { podHealth: "Failed" }), 90);
      const all = await store.fleet({ cluster }, NOW);
      assert.deepEqual(
        all.items.map((e) => [e.release.name, e.health.overall]),
        [
          ["b-broken", "Failed"],
          ["a-healthy", "Current"],
          ["c-recovered", "Current"],
        ],
      );
      const failed = await store.fleet({ cluster, health: ["Failed", "Unknown"] }, NOW);
      assert.deepEqual(
        failed.items.map((e) => e.release.name),
        ["b-broken"],
      );
      const page1 = await store.fleet({ cluster, limit: 2 }, NOW);
      const page2 = await store.fleet({ cluster, limit: 2, cursor: page1.cursor }, NOW);
      assert.deepEqual(
        [...page1.items, ...page2.items].map((e) => e.release.name),
        ["b-broken", "a-healthy", "c-recovered"],
      );
      await assert.rejects(store.fleet({ cluster: "other", cursor: page1.cursor }, NOW), {
        name: "InvalidCursorError",
      });
    });

    test("a sighting's freshness check: written with the snapshot, replaced by each extend, on its fleet entry", async () => {
      const store = await makeStore();
      const release = uniqueRelease(`fr${process.pid}${Math.floor(Math.random() * 1e6)}`);
      const newer = { state: "cluster-newer" as const, clusterRevision: 3 };
      await recordObservation(store, observe(release, run(0), { freshness: newer }), 90);
      assert.deepEqual((await store.latest(release))?.freshness, newer);
      const entry = async () => (await store.fleet({ cluster: release.cluster }, NOW)).items[0];
      assert.deepEqual((await entry()).freshness, newer);
      const matches = { state: "matches" as const, clusterRevision: 2 };
      const again = await recordObservation(store, observe(release, run(5), { freshness: matches }), 90);
      assert.equal(again.outcome, "extended", "not part of the digest");
      assert.deepEqual(again.snapshot.freshness, matches);
      assert.deepEqual((await store.latest(release))?.freshness, matches);
      assert.deepEqual((await entry()).freshness, matches);
      await recordObservation(store, observe(release, run(10), { freshness: { state: "not-checked" } }), 90);
      assert.deepEqual((await entry()).freshness, { state: "not-checked" }, "no cluster revision: none kept");
      await recordObservation(store, observe(release, run(15)), 90);
      assert.equal((await store.latest(release))?.freshness, undefined, "not checked at all: none");
      assert.equal((await entry()).freshness, undefined);
    });

    test("fleet by namespace and by a set of clusters; each entry's drift count", async () => {
      const store = await makeStore();
      const cluster = `fc${process.pid}${Math.floor(Math.random() * 1e6)}`;
      const other = `${cluster}o`;
      const drift = [
        { apiVersion: "v1", kind: "ConfigMap", name: "web", field: "data.A", live: "x", conflicts: true },
        { apiVersion: "v1", kind: "ConfigMap", name: "web", field: "data.B", live: "y", conflicts: false },
      ];
      await recordObservation(store, observe({ cluster, namespace: "shop", name: "api" }, run(0), { drift }), 90);
      await recordObservation(store, observe({ cluster, namespace: "shop", name: "web" }, run(0)), 90);
      await recordObservation(
        store,
        observe({ cluster, namespace: "data", name: "db" }, run(0), { podHealth: "Failed" }),
        90,
      );
      await recordObservation(store, observe({ cluster: other, namespace: "shop", name: "api" }, run(0)), 90);
      await recordObservation(store, observe({ cluster: `${cluster}x`, namespace: "shop", name: "api" }, run(0)), 90);
      const names = (page: { items: { release: { cluster: string; namespace: string; name: string } }[] }) =>
        page.items.map(
          (e) => `${e.release.cluster.slice(cluster.length) || "."}/${e.release.namespace}/${e.release.name}`,
        );
      assert.deepEqual(names(await store.fleet({ cluster, namespace: "shop" }, NOW)), ["./shop/api", "./shop/web"]);
      const both = { clusters: [cluster, other] };
      assert.deepEqual(names(await store.fleet(both, NOW)), ["./data/db", "./shop/api", "./shop/web", "o/shop/api"]);
      assert.deepEqual(names(await store.fleet({ ...both, namespace: "shop", health: ["Current"] }, NOW)), [
        "./shop/api",
        "./shop/web",
        "o/shop/api",
      ]);
      const page1 = await store.fleet({ ...both, limit: 2 }, NOW);
      const page2 = await store.fleet({ ...both, limit: 2, cursor: page1.cursor }, NOW);
      assert.deepEqual([...names(page1), ...names(page2)], ["./data/db", "./shop/api", "./shop/web", "o/shop/api"]);
      await assert.rejects(store.fleet({ clusters: [cluster], cursor: page1.cursor }, NOW), {
        name: "InvalidCursorError",
      });
      assert.deepEqual((await store.fleet({ clusters: [] }, NOW)).items, []);
      // Expired latest snapshots are not listed.
      assert.deepEqual((await store.fleet(both, new Date("2027-01-01T00:00:00Z"))).items, []);
      const entries = (await store.fleet({ cluster, namespace: "shop" }, NOW)).items;
      assert.deepEqual(
        entries.map((e) => e.driftCount),
        [2, 0],
        "the drift count rides on the index entry",
      );
      // A registry past DynamoDB's IN (100 operands) reads the same (filtered as read), with a cursor of its own size.
      const many = { clusters: [cluster, other, ...Array.from({ length: 148 }, (_, i) => `c${i}`)], limit: 2 };
      const first = await store.fleet(many, NOW);
      const second = await store.fleet({ ...many, cursor: first.cursor }, NOW);
      assert.deepEqual([...names(first), ...names(second)], ["./data/db", "./shop/api", "./shop/web", "o/shop/api"]);
      assert.ok(String(first.cursor).length < 300);
      await assert.rejects(store.fleet({ clusters: Array.from({ length: 10_001 }, (_, i) => `c${i}`) }, NOW), {
        kind: "validation",
      });
    });

    test("a corrupt stored snapshot reads as an error naming it", async () => {
      const store = await makeStore();
      const { snapshot } = await recordObservation(store, observe(uniqueRelease(), run(0)), 90);
      await hooks.corrupt(store, snapshot.id);
      await assert.rejects(store.get(snapshot.id, NOW), (error: Error) => {
        assert.equal(error.name, "SnapshotCorruptError");
        assert.match(error.message, new RegExp(`stored snapshot ${snapshot.id.replace(/[.@]/g, "\\$&")} is corrupt: `));
        return true;
      });
    });
  });
}
