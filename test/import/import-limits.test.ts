import assert from "node:assert/strict";
import { test } from "node:test";
import { gzipSync } from "node:zlib";
import { encodeHelmSecret, HELM_STORAGE_TYPE } from "../../shared/release/helm-codec.ts";
import type { Release } from "../../shared/release/model.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { canonicalJson } from "../../shared/store/revision-content.ts";
import { importReleases } from "../../shared/usecases/import.ts";
import { makeRelease } from "../store/fixtures.ts";

const list = (items: unknown[]) => ({ apiVersion: "v1", kind: "List", items });
const deepJson = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;

/** A Helm Secret whose release JSON has `config` nested `levels` deep (JSON.stringify itself would overflow). */
function deepSecret(name: string, levels: number) {
  const release = makeRelease({ name });
  const json = JSON.stringify({ ...release, config: "__DEEP__" }).replace('"__DEEP__"', deepJson(levels));
  const payload = gzipSync(json).toString("base64");
  return {
    ...encodeHelmSecret(release),
    type: HELM_STORAGE_TYPE,
    data: { release: Buffer.from(payload).toString("base64") },
  };
}

const ALIAS_BOMB = [
  "---",
  "# Source: c/templates/bomb.yaml",
  "apiVersion: v1",
  "kind: ConfigMap",
  "metadata: {name: lol}",
  "data:",
  "  a: &a [x, x, x, x, x, x, x, x, x]",
  "  b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]",
  "  c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]",
  "  d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]",
  "  e: [*d, *d, *d, *d, *d, *d, *d, *d, *d]",
  "",
].join("\n");

test("values nested 10,000 levels: that object fails by name, the valid ones around it are stored", async () => {
  const store = new MemoryReleaseStore();
  const summary = await importReleases(
    { store, clusters: "any" },
    {
      cluster: "c",
      document: list([
        encodeHelmSecret(makeRelease({ name: "valid" })),
        deepSecret("deep", 10_000),
        encodeHelmSecret(makeRelease({ name: "valid2" })),
      ]),
    },
  );
  assert.deepEqual(
    summary.results.map((r) => `${r.object}:${r.outcome}`),
    [
      "Secret/default/sh.helm.release.v1.valid.v1:imported",
      "Secret/default/sh.helm.release.v1.deep.v1:failed",
      "Secret/default/sh.helm.release.v1.valid2.v1:imported",
    ],
  );
  assert.match(summary.results[1].error ?? "", /release config is nested deeper than 256 levels/);
  assert.equal((await store.getLatest({ cluster: "c", namespace: "default", name: "valid2" })).version, 1);
  // 200 levels is deep but allowed.
  const ok = await importReleases({ store, clusters: "any" }, { cluster: "c", document: deepSecret("deepish", 200) });
  assert.equal(ok.imported, 1);
});

test("the stores and the hash refuse absurd nesting with a validation error, never a stack overflow", async () => {
  const deep = JSON.parse(deepJson(10_000));
  assert.throws(() => canonicalJson(deep), { code: "ValueTooDeep" });
  const release: Release = { ...makeRelease({ name: "direct" }), config: deep };
  await assert.rejects(new MemoryReleaseStore().putRevision("c", release), {
    kind: "validation",
    message: /release config is nested deeper than 256 levels/,
  });
});

test("a manifest that is an alias bomb is refused at import; a merely broken document is stored and flagged", async () => {
  const store = new MemoryReleaseStore();
  const good = makeRelease({ name: "good" });
  const bomb = makeRelease({ name: "bomb", manifest: `${good.manifest}${ALIAS_BOMB}` });
  const broken = makeRelease({
    name: "broken",
    manifest: `${good.manifest}---\nkind: ConfigMap\nmetadata: {name: x\n`,
  });
  const summary = await importReleases(
    { store, clusters: "any" },
    { cluster: "c", document: list([bomb, broken, good].map((r) => encodeHelmSecret(r))) },
  );
  assert.deepEqual(
    summary.results.map((r) => r.outcome),
    ["failed", "imported", "imported"],
  );
  assert.match(summary.results[0].error ?? "", /ConfigMap\/lol \(c\/templates\/bomb\.yaml\).*alias.*within bounds/);
  assert.equal(summary.results[1].warnings?.length, 1);
  assert.match(summary.results[1].warnings?.[0] ?? "", /invalid YAML/);
  assert.equal(summary.results[2].warnings, undefined);
});

/** The real memory store, counting writes in flight and slowed so parallelism shows. */
function slowStore(delayMs: number) {
  const store = new MemoryReleaseStore();
  const put = store.putRevision.bind(store);
  const stats = { inFlight: 0, maxInFlight: 0, order: [] as string[] };
  store.putRevision = async (cluster, release) => {
    stats.inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    try {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      stats.order.push(`${release.name}.v${release.version}`);
      return await put(cluster, release);
    } finally {
      stats.inFlight--;
    }
  };
  return { store, stats };
}

test("writes run in parallel (bounded), one release's revisions in document order", async () => {
  const { store, stats } = slowStore(5);
  const items = [];
  for (let i = 0; i < 20; i++) items.push(encodeHelmSecret(makeRelease({ name: `r${i}` })));
  for (let v = 1; v <= 5; v++) items.push(encodeHelmSecret(makeRelease({ name: "many", version: v })));
  const summary = await importReleases(
    { store, clusters: "any" },
    { cluster: "c", document: list(items), concurrency: 4 },
  );
  assert.equal(summary.imported, 25);
  assert.equal(summary.complete, true);
  assert.equal(stats.maxInFlight, 4);
  assert.deepEqual(
    stats.order.filter((n) => n.startsWith("many.")),
    ["many.v1", "many.v2", "many.v3", "many.v4", "many.v5"],
  );
  assert.deepEqual(
    summary.results.map((r) => r.object),
    items.map((o) => `Secret/default/${o.metadata.name}`),
    "results keep document order",
  );
});

test("past the deadline no object is started: a partial summary with a hint; re-running continues idempotently", async () => {
  const { store } = slowStore(10);
  const items = Array.from({ length: 40 }, (_, i) => encodeHelmSecret(makeRelease({ name: `r${i}` })));
  let ms = 0;
  // Each start advances the fake clock; the deadline falls after 10 starts.
  const ticking = { now: () => new Date(ms++) };
  const document = list(items);
  const first = await importReleases(
    { store, clusters: "any", clock: ticking },
    { cluster: "c", document, concurrency: 2, deadline: 10 },
  );
  assert.equal(first.complete, false);
  assert.equal(first.imported + first.notStarted, 40);
  assert.ok(first.imported > 0 && first.notStarted > 0, JSON.stringify({ ...first, results: undefined }));
  assert.match(first.hint ?? "", /not started; re-run the same import to continue/);
  const second = await importReleases(
    { store, clusters: "any", clock: { now: () => new Date(ms) } },
    { cluster: "c", document },
  );
  assert.equal(second.complete, true);
  assert.equal(second.notStarted, 0);
  assert.equal(second.hint, undefined);
  assert.equal(second.unchanged, first.imported);
  assert.equal(second.imported, first.notStarted);
  // A deadline already past: nothing is started, nothing fails.
  const none = await importReleases(
    { store, clusters: "any", clock: { now: () => new Date(1) } },
    { cluster: "c", document, deadline: 0 },
  );
  assert.deepEqual([none.results.length, none.notStarted, none.complete], [0, 40, false]);
});
