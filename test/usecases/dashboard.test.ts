/**
 * The dashboard's use cases on the memory stores (the DynamoDB side of each store has its contract suite):
 * the fleet joined, ordered, filtered, counted and paged; a release's timeline; the fleet over time; and a
 * person's grants narrowing every read.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { Grants } from "../../shared/access/grants.ts";
import { groupsOf, parseViewerAccessMap, resolveViewer } from "../../shared/access/viewer-access.ts";
import { recordObservation } from "../../shared/audit/record.ts";
import { viewerScope } from "../../shared/clusters/scope.ts";
import { MemorySnapshotStore } from "../../shared/snapshots/memory-snapshot-store.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { FleetCache, fleetReleases } from "../../shared/usecases/fleet.ts";
import { releaseHistory } from "../../shared/usecases/history.ts";
import { fleetTimeline, releaseTimeline } from "../../shared/usecases/timeline.ts";
import { observe, run } from "../history/fixtures.ts";
import { makeRelease } from "../store/fixtures.ts";

const NOW = new Date("2026-01-01T12:00:00Z");
const registry = {
  list: () => [
    { name: "eu", region: "eu-west-1" },
    { name: "us", region: "us-east-1" },
  ],
};
const store = new MemoryReleaseStore();
const snapshots = new MemorySnapshotStore();
const deps = { store, snapshots, clusters: registry, clock: { now: () => NOW } };

before(async () => {
  for (const [cluster, namespace, name] of [
    ["eu", "shop", "api"],
    ["eu", "shop", "web"],
    ["eu", "ops", "logs"],
    ["us", "shop", "api"],
    ["us", "data", "db"],
  ]) {
    await store.putRevision(cluster, makeRelease({ name, namespace, version: 1 }));
  }
  await store.putRevision("eu", makeRelease({ name: "web", namespace: "shop", version: 2 }));
  const failing = { podHealth: "Failed" as const };
  await recordObservation(snapshots, observe({ cluster: "eu", namespace: "shop", name: "api" }, run(0), failing), 90);
  await recordObservation(snapshots, observe({ cluster: "eu", namespace: "shop", name: "web" }, run(0)), 90);
  await recordObservation(
    snapshots,
    observe({ cluster: "eu", namespace: "shop", name: "web" }, run(5), {
      drift: [
        { apiVersion: "v1", kind: "ConfigMap", name: "web", field: "data.A", live: "x", conflicts: true },
        { apiVersion: "v1", kind: "ConfigMap", name: "web", field: "data.B", live: "y", conflicts: false },
      ],
    }),
    90,
  );
  await recordObservation(snapshots, observe({ cluster: "us", namespace: "shop", name: "api" }, run(0), failing), 90);
  await recordObservation(snapshots, observe({ cluster: "us", namespace: "data", name: "db" }, run(0)), 90);
});

test("the fleet: every stored release, worst health first, then by cluster, namespace, name; counts per health", async () => {
  const page = await fleetReleases(deps, {});
  assert.deepEqual(
    page.releases.map((r) => [r.health, r.cluster, `${r.namespace}/${r.name}`]),
    [
      ["Failed", "eu", "shop/api"],
      ["Failed", "us", "shop/api"],
      ["Current", "eu", "shop/web"],
      ["Current", "us", "data/db"],
      ["NotAudited", "eu", "ops/logs"],
    ],
  );
  assert.deepEqual(page.counts, {
    Failed: 2,
    Unknown: 0,
    NotFound: 0,
    Terminating: 0,
    InProgress: 0,
    Current: 2,
    NotAudited: 1,
  });
  assert.equal(page.total, 5);
  const web = page.releases[2];
  assert.equal(web.revision, 2, "the latest stored revision");
  assert.equal(web.auditedRevision, 2);
  assert.equal(web.driftCount, 2);
  assert.equal(web.chart, "demo-0.1.0");
  assert.equal(web.since, "2026-01-01T00:05:00.000Z", "since the stretch it is in began");
});

test("the fleet's filters (health, text, cluster, namespace) and pages", async () => {
  const failed = await fleetReleases(deps, { health: "Failed,NotAudited" });
  assert.deepEqual(
    failed.releases.map((r) => `${r.cluster}/${r.name}`),
    ["eu/api", "us/api", "eu/logs"],
  );
  assert.equal(failed.counts.Current, 2, "counts ignore the health filter, so the chips stay useful");
  assert.deepEqual(
    (await fleetReleases(deps, { q: "DB" })).releases.map((r) => r.name),
    ["db"],
  );
  assert.deepEqual((await fleetReleases(deps, { cluster: "eu", namespace: "shop" })).total, 2);
  const first = await fleetReleases(deps, { limit: 2 });
  assert.equal(first.cursor, "2");
  const second = await fleetReleases(deps, { limit: 2, cursor: first.cursor });
  assert.deepEqual(
    second.releases.map((r) => r.name),
    ["web", "db"],
  );
  await assert.rejects(fleetReleases(deps, { health: "Sad" }), /not one of/);
  await assert.rejects(fleetReleases(deps, { cursor: "abc" }), /not one this listing gave/);
  await assert.rejects(fleetReleases(deps, { cluster: "mars" }), /unknown cluster "mars"/);
});

test("a person's grants narrow every read: hidden in listings, AccessDenied (403) when asked by name", async () => {
  const map = parseViewerAccessMap(
    'groups:\n  - group: team-us\n    clusters: [us]\n    namespaces: [shop]\n  - groups: ["*"]\n    clusters: [eu]\n    namespaces: [ops]\n',
    "test",
  );
  const grants = resolveViewer(map, ["team-us", "other"]);
  const scoped = { ...deps, clusters: viewerScope(registry, grants) };
  const page = await fleetReleases(scoped, {});
  assert.deepEqual(
    page.releases.map((r) => `${r.cluster}/${r.namespace}/${r.name}`),
    ["us/shop/api", "eu/ops/logs"],
  );
  await assert.rejects(fleetReleases(scoped, { cluster: "us", namespace: "data" }), { code: "AccessDenied" });
  await assert.rejects(
    releaseHistory(scoped, { cluster: "eu", namespace: "shop", name: "api" }),
    (error: Error & { kind?: string }) => error.kind === "forbidden",
  );
  await assert.rejects(releaseTimeline(scoped, { cluster: "us", namespace: "data", name: "db" }, {}), {
    code: "AccessDenied",
  });
  const nobody = resolveViewer(map, []);
  assert.deepEqual(
    (await fleetReleases({ ...deps, clusters: viewerScope(registry, nobody) }, {})).releases.map((r) => r.name),
    ["logs"],
    'a "*" group binding is for anyone signed in',
  );
  assert.ok(new Grants([]).none);
});

test("the groups claim of a token, each group exact: a list, or one string that is one group", () => {
  assert.deepEqual(groupsOf(["a", "b"]), ["a", "b"]);
  assert.deepEqual(groupsOf(["a b", "c,d", "e "]), ["a b", "c,d", "e "], "never split nor trimmed");
  assert.deepEqual(groupsOf("a,b c"), ["a,b c"], "one string is one group");
  assert.deepEqual(groupsOf(42), []);
  assert.throws(
    () =>
      parseViewerAccessMap(
        "groups:\n  - clusters: [eu]\n    team: x\n  - group: g\n    clusters: [Bad_Name!]\n",
        "DASHBOARD_ACCESS",
      ),
    /DASHBOARD_ACCESS: groups\[0\]: unknown field "team"; groups\[0\]\.group: required.*groups\[1\]\.clusters/,
  );
  assert.throws(() => parseViewerAccessMap("slack: []", "X"), /unknown key "slack"/);
});

const cause = (what: string) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  name: "api",
  health: "Failed" as const,
  pods: [],
  podsWithProblems: 1,
  text: `Deployment api Failed → container api ${what}`,
});

test("a release's timeline: 50 changes over 90 days are 51 stripes read as 51 items, with revision events and causes", async () => {
  const release = { cluster: "eu", namespace: "shop", name: "busy" };
  const start = NOW.getTime() - 89 * 86_400_000;
  const history = new MemorySnapshotStore();
  for (let i = 0; i <= 50; i++) {
    const at = new Date(start + i * 1.7 * 86_400_000);
    const runId = at
      .toISOString()
      .replace(/\.\d{3}Z$/, "Z")
      .replace(/[-:]/g, "");
    await recordObservation(
      history,
      observe(release, runId, {
        podHealth: i % 2 ? "Failed" : "Current",
        revision: 2 + Math.floor(i / 10),
        ...(i % 2 ? { causes: [cause(`exit code ${i}`)] } : {}),
      }),
      90,
    );
  }
  const timeline = await releaseTimeline(
    { snapshots: history, clusters: registry, clock: { now: () => NOW } },
    release,
    {
      since: "90d",
    },
  );
  assert.equal(timeline.stripes.length, 51);
  assert.equal(timeline.itemsRead, 51);
  assert.deepEqual(
    timeline.stripes.slice(0, 2).map((s) => s.health),
    ["Current", "Failed"],
  );
  // A Failed stripe says why (issue #33): the cause chain its snapshot kept.
  assert.deepEqual(
    timeline.stripes.slice(0, 2).map((s) => s.cause),
    [undefined, "Deployment api Failed → container api exit code 1"],
  );
  assert.equal(timeline.events.filter((e) => e.kind === "revision").length, 5);
  assert.ok(
    timeline.stripes.every((s, i, all) => i === 0 || all[i - 1].to === s.from),
    "stripes touch",
  );
  await assert.rejects(
    releaseTimeline({ snapshots: history, clusters: registry, clock: { now: () => NOW } }, release, { since: "100d" }),
    /92 days/,
  );
});

test("the fleet over time counts releases per health in each bucket", async () => {
  const timeline = await fleetTimeline(deps, { since: "24h" });
  assert.equal(timeline.buckets.length, 96);
  assert.equal(timeline.releases, 4);
  // Until the first audit (00:00) nothing is known; after it, the two failing releases count as Failed.
  assert.equal(timeline.counts.Failed[0], 0);
  assert.equal(Math.max(...timeline.counts.Failed), 2);
});

test("a warm function keeps the joined fleet 30 s: paging and filtering read nothing, a copy each time", async () => {
  let lists = 0;
  const counting = counted(store, "listReleases", () => lists++);
  let now = 0;
  const cache = new FleetCache({ ttlMs: 30_000, now: () => now });
  const cached = { ...deps, store: counting, cache };
  // Rows without counts come from the index: no listing, nothing held.
  await fleetReleases(cached, { limit: 2, counts: false });
  assert.equal(lists, 0, "the index answered");
  // The counts need the join: it is held, and then serves the pages and filters too (with counts or not).
  await fleetReleases(cached, {});
  const reads = lists;
  assert.equal(reads, 2, "one listing per cluster");
  const first = await fleetReleases(cached, { limit: 2, counts: false });
  assert.equal(first.total, 5, "a held join gives the counts anyway");
  first.releases[0].name = "changed by a caller";
  await fleetReleases(cached, { limit: 2, cursor: first.cursor });
  const filtered = await fleetReleases(cached, { health: "Failed" });
  assert.equal(lists, reads, "served from the cache");
  assert.deepEqual(
    filtered.releases.map((r) => r.name),
    ["api", "api"],
    "a copy: a caller's change does not stick",
  );
  now = 31_000;
  await fleetReleases(cached, {});
  assert.equal(lists, reads * 2, "read again once stale");
});

test("rows without counts: the index answers the join's pages, reading the page, not the fleet", async () => {
  const releases = new MemoryReleaseStore();
  const history = new MemorySnapshotStore();
  const healths = ["Failed", "Current", "Unknown", "Current", "InProgress"] as const;
  for (let i = 0; i < 30; i++) {
    const cluster = ["eu", "us"][i % 2];
    const key = { cluster, namespace: ["shop", "data", "ops"][i % 3], name: `r${String(i).padStart(2, "0")}` };
    await releases.putRevision(cluster, makeRelease({ name: key.name, namespace: key.namespace, version: 1 }));
    if (i % 7 === 6) continue; // never audited
    const overall = healths[i % healths.length];
    await recordObservation(history, observe(key, run(0), { revision: 1, health: { overall, message: overall } }), 90);
    // A newer revision stored since the audit: the row shows it, and the revision the audit read.
    if (i % 5 === 0) {
      await releases.putRevision(cluster, makeRelease({ name: key.name, namespace: key.namespace, version: 2 }));
    }
  }
  // Audited, then removed from the store (helm uninstall): listed by neither way.
  await recordObservation(history, observe({ cluster: "eu", namespace: "shop", name: "gone" }, run(0)), 90);
  // A cluster outside the registry: its entries are not the fleet's.
  await releases.putRevision("mars", makeRelease({ name: "rover", namespace: "shop", version: 1 }));
  await recordObservation(history, observe({ cluster: "mars", namespace: "shop", name: "rover" }, run(0)), 90);

  let listings = 0;
  let latestReads = 0;
  const store = counted(releases, "listReleases", () => listings++);
  const snapshots = counted(history, "latest", () => latestReads++);
  const both = { store, snapshots, clusters: registry, clock: { now: () => NOW } };
  const queries = [
    { limit: 5 },
    { limit: 5, cursor: "5" },
    { limit: 5, cursor: "20" },
    { health: "Failed" },
    { health: "Current,Unknown", limit: 3, cursor: "3" },
    { cluster: "eu", limit: 4 },
    { cluster: "us", namespace: "shop", limit: 2 },
    { namespace: "data", limit: 3 },
  ];
  for (const query of queries) {
    listings = 0;
    latestReads = 0;
    const fromIndex = await fleetReleases(both, { ...query, counts: false });
    assert.equal(listings, 0, `${JSON.stringify(query)}: no listing`);
    assert.equal(latestReads, 0, `${JSON.stringify(query)}: drift counts from the index`);
    assert.equal(fromIndex.counts, undefined, "no counts: they would need the whole fleet");
    const joined = await fleetReleases(both, query, { join: true });
    assert.deepEqual(fromIndex.releases, joined.releases, JSON.stringify(query));
    assert.equal(fromIndex.cursor, joined.cursor, JSON.stringify(query));
  }
  await recordObservation(
    history,
    observe({ cluster: "eu", namespace: "shop", name: "r00" }, run(5), {
      revision: 1,
      health: { overall: "Failed", message: "Failed" },
      freshness: { state: "cluster-newer", clusterRevision: 3 },
    }),
    90,
  );
  const web = (await fleetReleases(both, { health: "Failed", counts: false })).releases.find((r) => r.name === "r00");
  assert.deepEqual(web?.freshness, { state: "cluster-newer", clusterRevision: 3 }, "the last audit's check");
  assert.equal(web?.revision, 2, "the stored revision");
  assert.equal(web?.auditedRevision, 1, "the revision the audit read");
  // Past the audited releases come the never-audited ones: the join lists them.
  listings = 0;
  const last = await fleetReleases(both, { limit: 4, cursor: "26", counts: false });
  assert.ok(listings > 0, "joined");
  assert.ok(last.releases.every((r) => r.health === "NotAudited"));
  // A text search and grants of some namespaces join too; grants of whole clusters read the index.
  listings = 0;
  await fleetReleases(both, { q: "r1", counts: false });
  assert.ok(listings > 0);
  const some = { ...both, clusters: viewerScope(registry, new Grants([{ clusters: ["us"], namespaces: ["shop"] }])) };
  listings = 0;
  const narrow = await fleetReleases(some, { limit: 3, counts: false });
  assert.ok(listings > 0);
  assert.ok(narrow.releases.every((r) => r.cluster === "us" && r.namespace === "shop"));
  const whole = { ...both, clusters: viewerScope(registry, new Grants([{ clusters: ["eu"], namespaces: "*" }])) };
  listings = 0;
  const eu = await fleetReleases(whole, { limit: 3, counts: false });
  assert.equal(listings, 0);
  assert.deepEqual(eu.releases, (await fleetReleases(whole, { limit: 3 }, { join: true })).releases);
  assert.ok(eu.releases.every((r) => r.cluster === "eu"));
});

/** `target` with calls of `method` counted (a Proxy: the stores' private fields need the real receiver). */
function counted<T extends object>(target: T, method: keyof T, count: () => void): T {
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (property === method) count();
        return value.apply(object, args);
      };
    },
  });
}
