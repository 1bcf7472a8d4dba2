/**
 * Helm's identity rule on the import path (POST /clusters/{c}/releases/import, `cli import`) and in the
 * in-memory decoding a status's freshness check uses: an object is the release its namespace, name and
 * labels say; a payload that disagrees is refused by name, never stored; a bare object (no
 * metadata.namespace, as some CI tools write them) is filed under its payload's namespace.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeStorageObject } from "../../shared/ingest/storage-object.ts";
import { encodeHelmConfigMap, encodeHelmSecret } from "../../shared/release/helm-codec.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { importReleases } from "../../shared/usecases/import.ts";
import { makeRelease } from "../store/fixtures.ts";

const list = (items: unknown[]) => ({ apiVersion: "v1", kind: "List", items });
const relocated = <T extends { metadata: object }>(object: T, metadata: object): T => ({
  ...object,
  metadata: { ...object.metadata, ...metadata },
});

test("import: objects whose payload names another release are refused by name; shop's revisions untouched", async () => {
  const store = new MemoryReleaseStore();
  const real = makeRelease({ name: "api", namespace: "shop", version: 2 });
  await importReleases({ store, clusters: "any" }, { cluster: "c", document: encodeHelmSecret(real) });
  const forgedPayload = makeRelease({ name: "api", namespace: "shop", version: 2, manifest: "kind: Forged\n" });
  const summary = await importReleases(
    { store, clusters: "any" },
    {
      cluster: "c",
      document: list([
        // Another namespace's object.
        relocated(encodeHelmSecret(forgedPayload), { namespace: "team-a" }),
        relocated(encodeHelmConfigMap(forgedPayload), { namespace: "team-a" }),
        // Shop's own object name, payload of another name / revision.
        relocated(encodeHelmSecret(makeRelease({ name: "web", namespace: "shop", version: 2 })), {
          name: "sh.helm.release.v1.api.v2",
          labels: { owner: "helm", status: "deployed" },
        }),
        relocated(encodeHelmSecret(makeRelease({ name: "api", namespace: "shop", version: 7 })), {
          name: "sh.helm.release.v1.api.v2",
          labels: { owner: "helm", status: "deployed" },
        }),
        // Labels that disagree with the name.
        relocated(encodeHelmSecret(makeRelease({ name: "api", namespace: "shop", version: 3 })), {
          labels: { owner: "helm", name: "api", version: "4", status: "deployed" },
        }),
      ]),
    },
  );
  assert.deepEqual(
    summary.results.map((r) => [r.object, r.outcome, r.release, r.revision]),
    [
      ["Secret/team-a/sh.helm.release.v1.api.v2", "failed", "team-a/api", 2],
      ["ConfigMap/team-a/sh.helm.release.v1.api.v2", "failed", "team-a/api", 2],
      ["Secret/shop/sh.helm.release.v1.api.v2", "failed", "shop/api", 2],
      ["Secret/shop/sh.helm.release.v1.api.v2", "failed", "shop/api", 2],
      ["Secret/shop/sh.helm.release.v1.api.v3", "failed", "shop/api", 3],
    ],
  );
  assert.match(summary.results[0].error ?? "", /^the release inside names another namespace than the object itself/);
  assert.match(summary.results[2].error ?? "", /another name than/);
  assert.match(summary.results[3].error ?? "", /another revision than/);
  assert.match(summary.results[4].error ?? "", /version label disagrees with its name/);
  assert.ok(summary.results.every((r) => !r.error?.includes("Forged")));
  assert.equal((await store.getLatest({ cluster: "c", namespace: "shop", name: "api" })).manifest, real.manifest);
  assert.deepEqual(
    (await store.listReleases({ cluster: "c" })).items.map((r) => `${r.namespace}/${r.name}#${r.revision}`),
    ["shop/api#2"],
  );
});

test("import: a bare object without metadata.namespace is filed under its payload's namespace, with provenance", async () => {
  const store = new MemoryReleaseStore();
  const secret = encodeHelmSecret(makeRelease({ name: "api", namespace: "shop", version: 1 }));
  const { namespace: _namespace, ...metadata } = secret.metadata;
  const summary = await importReleases(
    { store, clusters: "any" },
    { cluster: "c", document: { ...secret, metadata: { ...metadata, uid: "u-1" } } },
  );
  assert.deepEqual(
    summary.results.map((r) => [r.outcome, r.release, r.revision]),
    [["imported", "shop/api", 1]],
  );
  assert.deepEqual(await store.revisionSources({ cluster: "c", namespace: "shop", name: "api" }), [
    { revision: 1, source: { kind: "Secret", uid: "u-1", via: "import" } },
  ]);
  // The same revision read later from the cluster: its provenance is written, the revision stays unchanged.
  const again = await importReleases(
    { store, clusters: "any" },
    { cluster: "c", document: relocated(secret, { uid: "u-2" }) },
  );
  assert.equal(again.unchanged, 1);
  assert.deepEqual(await store.revisionSources({ cluster: "c", namespace: "shop", name: "api" }), [
    { revision: 1, source: { kind: "Secret", namespace: "shop", uid: "u-2", via: "import" } },
  ]);
});

test("the freshness check's in-memory decoding refuses a forged object the same way", () => {
  const forgedObject = relocated(encodeHelmSecret(makeRelease({ name: "api", namespace: "shop", version: 2 })), {
    namespace: "team-a",
  });
  const decoded = decodeStorageObject(forgedObject);
  assert.equal(decoded.release, undefined);
  assert.equal(decoded.result.outcome, "failed");
  assert.equal(decoded.result.release, "team-a/api");
  const genuine = decodeStorageObject(encodeHelmSecret(makeRelease({ name: "api", namespace: "shop", version: 2 })));
  assert.equal(genuine.release?.namespace, "shop");
});
