import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { encodeHelmConfigMap, encodeHelmSecret, releaseFromHelmJson } from "../../shared/release/helm-codec.ts";
import { StoreUnavailableError } from "../../shared/store/errors.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import type { ReleaseStore } from "../../shared/store/release-store.ts";
import { type ImportProgress, importReleases } from "../../shared/usecases/import.ts";
import { getManifest } from "../../shared/usecases/manifest.ts";
import { makeRelease } from "../store/fixtures.ts";

const list = (items: unknown[]) => ({ apiVersion: "v1", kind: "List", items });
const corrupt = { ...encodeHelmSecret(makeRelease({ name: "broken" })), data: { release: "%%%" } };
const plainSecret = {
  apiVersion: "v1",
  kind: "Secret",
  type: "Opaque",
  metadata: { name: "db-password", namespace: "default" },
  data: { password: "c2VjcmV0" },
};

test("a List of Secrets and ConfigMaps: Helm's imported, others skipped, a broken one reported by name", async () => {
  const store = new MemoryReleaseStore();
  const progress: ImportProgress[] = [];
  const summary = await importReleases(
    { store, clusters: "any" },
    {
      cluster: "prod",
      document: list([
        encodeHelmSecret(makeRelease({ name: "web", version: 1, status: "superseded" })),
        plainSecret,
        corrupt,
        encodeHelmSecret(makeRelease({ name: "web", version: 2 })),
        encodeHelmConfigMap(makeRelease({ name: "legacy", namespace: "ops", version: 4 })),
        { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "kube-root-ca.crt", namespace: "default" } },
      ]),
      onProgress: (p) => progress.push(p),
    },
  );
  assert.deepEqual(
    { imported: summary.imported, unchanged: summary.unchanged, skipped: summary.skipped, failed: summary.failed },
    { imported: 3, unchanged: 0, skipped: 2, failed: 1 },
  );
  assert.deepEqual(summary.results[2], {
    object: "Secret/default/sh.helm.release.v1.broken.v1",
    outcome: "failed",
    error: "data.release (Secret data is base64 on the wire) is not valid base64",
  });
  assert.deepEqual(summary.results[3], {
    object: "Secret/default/sh.helm.release.v1.web.v2",
    outcome: "imported",
    release: "default/web",
    revision: 2,
  });
  assert.equal(JSON.stringify(summary).includes("c2VjcmV0"), false, "no Secret value in the summary");
  assert.deepEqual(
    progress.map((p) => `${p.done}/${p.total}`),
    ["1/6", "2/6", "3/6", "4/6", "5/6", "6/6"],
  );
  assert.equal((await store.getLatest({ cluster: "prod", namespace: "default", name: "web" })).version, 2);
  assert.equal((await store.getLatest({ cluster: "prod", namespace: "ops", name: "legacy" })).version, 4);
});

test("re-importing is idempotent; a later status from Helm updates in place; different content fails alone", async () => {
  const store = new MemoryReleaseStore();
  const v1 = makeRelease({ name: "api", version: 1 });
  const first = await importReleases({ store, clusters: "any" }, { cluster: "c", document: encodeHelmSecret(v1) });
  assert.equal(first.imported, 1);
  const again = await importReleases(
    { store, clusters: "any" },
    { cluster: "c", document: list([encodeHelmSecret(v1)]) },
  );
  assert.equal(again.unchanged, 1);
  const superseded = structuredClone(v1);
  superseded.info!.status = "superseded";
  const tampered = makeRelease({ name: "api", version: 1, manifest: "kind: Other\n" });
  const v2 = makeRelease({ name: "api", version: 2 });
  const next = await importReleases(
    { store, clusters: "any" },
    { cluster: "c", document: list([encodeHelmSecret(superseded), encodeHelmSecret(tampered), encodeHelmSecret(v2)]) },
  );
  assert.deepEqual(
    next.results.map((r) => r.outcome),
    ["imported", "failed", "imported"],
  );
  assert.match(next.results[1].error ?? "", /c\/default\/api revision 1: already stored with different content/);
  const stored = await store.getRevision({ cluster: "c", namespace: "default", name: "api" }, 1);
  assert.equal(stored.info?.status, "superseded");
  assert.equal(stored.manifest, v1.manifest);
});

test("the real helm v4 release JSON, stored the way Helm stores it, imports with its manifest intact", async () => {
  const capture = JSON.parse(
    readFileSync(new URL("../fixtures/helm-v4-captures/helm-status-output-demo.json", import.meta.url), "utf8"),
  );
  const store = new MemoryReleaseStore();
  const summary = await importReleases(
    { store, clusters: "any" },
    { cluster: "local", document: encodeHelmSecret(releaseFromHelmJson(capture)) },
  );
  assert.equal(summary.imported, 1);
  const stored = await getManifest(
    { store, clusters: "any" },
    { cluster: "local", namespace: "default", name: "demo" },
  );
  assert.deepEqual(stored, { revision: 2, manifest: capture.manifest });
});

test("a revision too large to store fails alone, named, and the rest is imported", async () => {
  const store = new MemoryReleaseStore();
  const huge = makeRelease({ name: "huge" });
  huge.config = { blob: "v".repeat(400 * 1024) };
  const summary = await importReleases(
    { store, clusters: "any" },
    { cluster: "c", document: list([encodeHelmSecret(huge), encodeHelmSecret(makeRelease({ name: "small" }))]) },
  );
  assert.deepEqual(
    summary.results.map((r) => `${r.object}:${r.outcome}`),
    ["Secret/default/sh.helm.release.v1.huge.v1:failed", "Secret/default/sh.helm.release.v1.small.v1:imported"],
  );
  assert.match(summary.results[0].error ?? "", /at most \d+ bytes can be stored/);
});

test("documents that are not Kubernetes objects are validation errors; bad clusters too", async () => {
  const store = new MemoryReleaseStore();
  for (const document of [null, "text", 42]) {
    await assert.rejects(importReleases({ store, clusters: "any" }, { cluster: "c", document }), {
      kind: "validation",
      message: /not a Kubernetes object/,
    });
  }
  await assert.rejects(importReleases({ store, clusters: "any" }, { cluster: "c", document: { kind: "SecretList" } }), {
    message: /has no items/,
  });
  await assert.rejects(importReleases({ store, clusters: "any" }, { cluster: "bad/cluster", document: list([]) }), {
    name: "InvalidClusterNameError",
  });
  const empty = await importReleases({ store, clusters: "any" }, { cluster: "c", document: list([]) });
  assert.deepEqual(empty.results, []);
});

test("a store outage stops the import with the store's error (a mock: the real engine cannot fail on demand)", async () => {
  const down = new MemoryReleaseStore() as ReleaseStore;
  down.putRevision = async () => {
    throw new StoreUnavailableError("cannot reach DynamoDB at http://127.0.0.1:1: connection refused (ECONNREFUSED)");
  };
  await assert.rejects(
    importReleases({ store: down, clusters: "any" }, { cluster: "c", document: encodeHelmSecret(makeRelease()) }),
    {
      name: "StoreUnavailableError",
    },
  );
});
