import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";
import { MANIFEST_CACHE_MAX_ENTRIES, PreparedManifestCache } from "../../shared/manifest/prepared-manifest.ts";

const key = { cluster: "c1", namespace: "ns", name: "app", revision: 1 };
const configMap =
  "---\n# Source: app/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: b\n";
const secret =
  "---\n# Source: app/templates/secret.yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  password: aHVudGVyMg==\n";

let cache = new PreparedManifestCache();
beforeEach(() => {
  cache = new PreparedManifestCache();
});
const prepareManifest = (...args: Parameters<PreparedManifestCache["prepare"]>) => cache.prepare(...args);
const manifestCacheSize = () => cache.size();

test("a warm call with the same revision and text returns the same parse", () => {
  const first = prepareManifest(key, configMap + secret, [secret]);
  // A fresh string with equal content, as a new store read returns it.
  const second = prepareManifest(key, `${configMap}${secret}`.slice(0), [`${secret}`]);
  assert.equal(second, first);
  assert.deepEqual(
    first.objects.map((object) => `${object.kind}/${object.name}`),
    ["ConfigMap/cm", "Secret/s"],
  );
  assert.equal(first.objects[0].source, "app/templates/cm.yaml");
  assert.doesNotMatch(first.redactedManifest, /aHVudGVyMg==/);
  assert.doesNotMatch(first.redactedHooks[0], /aHVudGVyMg==/);
});

test("a different text under the same revision is parsed again, never answered from the old parse", () => {
  const first = prepareManifest(key, configMap, []);
  const changed = prepareManifest(key, configMap.replace("name: cm", "name: other"), []);
  assert.notEqual(changed, first);
  assert.equal(changed.objects[0].name, "other");
  const hooksChanged = prepareManifest(key, configMap.replace("name: cm", "name: other"), [secret]);
  assert.notEqual(hooksChanged, changed);
  assert.equal(hooksChanged.redactedHooks.length, 1);
  assert.equal(manifestCacheSize().entries, 1);
});

test("other revisions, releases and clusters have their own entries", () => {
  const one = prepareManifest(key, configMap, []);
  assert.notEqual(prepareManifest({ ...key, revision: 2 }, configMap, []), one);
  assert.notEqual(prepareManifest({ ...key, cluster: "c2" }, configMap, []), one);
  assert.equal(manifestCacheSize().entries, 3);
});

test("what the cache hands out cannot be changed by a later stage", () => {
  const prepared = prepareManifest(key, configMap + secret, []);
  const object = prepared.objects[0];
  assert.throws(() => {
    (object as { name: string }).name = "changed";
  }, TypeError);
  assert.throws(() => {
    (object.object.metadata as Record<string, unknown>).name = "changed";
  }, TypeError);
  assert.throws(() => (prepared.objects as unknown[]).push({}), TypeError);
  assert.equal(prepareManifest(key, configMap + secret, []).objects[0].name, "cm");
});

test("bounded: the least recently used revision is dropped first", () => {
  const first = prepareManifest({ ...key, revision: 1 }, configMap, []);
  for (let revision = 2; revision <= MANIFEST_CACHE_MAX_ENTRIES; revision++) {
    prepareManifest({ ...key, revision }, configMap, []);
  }
  assert.equal(prepareManifest({ ...key, revision: 1 }, configMap, []), first); // touched: now the newest
  prepareManifest({ ...key, revision: MANIFEST_CACHE_MAX_ENTRIES + 1 }, configMap, []); // evicts revision 2
  assert.equal(manifestCacheSize().entries, MANIFEST_CACHE_MAX_ENTRIES);
  assert.equal(prepareManifest({ ...key, revision: 1 }, configMap, []), first);
  const size = manifestCacheSize();
  prepareManifest({ ...key, revision: 2 }, configMap, []); // a miss: parsed again, something else evicted
  assert.equal(manifestCacheSize().entries, MANIFEST_CACHE_MAX_ENTRIES);
  assert.equal(manifestCacheSize().chars, size.chars);
});

test("broken documents stay problems of the report, cached like the rest", () => {
  const broken = `${configMap}---\n# Source: app/templates/bad.yaml\nkind: [unclosed\n`;
  const prepared = prepareManifest(key, broken, []);
  assert.equal(prepared.objects.length, 1);
  assert.equal(prepared.problems.length, 1);
  assert.equal(prepared.problems[0].source, "app/templates/bad.yaml");
  assert.equal(prepareManifest(key, broken, []), prepared);
});
