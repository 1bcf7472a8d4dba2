/**
 * Helm's identity rule through the release sync (issue #38, item 1), on the simulated EKS with the in-memory
 * stores: a tenant who may write a Secret or just a ConfigMap in its own namespace writes a Helm storage object
 * whose payload names another namespace's release. The sync files objects by their own namespace, name and
 * labels: the forgery is a named failure, never stored, never replaces or removes a stored revision, with a
 * full or a namespace-scoped sync; a store an older version filled with forgeries is repaired by a full sync.
 */
import assert from "node:assert/strict";
import { beforeEach, describe, test } from "node:test";
import { encodeHelmConfigMap, encodeHelmSecret } from "../../shared/release/helm-codec.ts";
import type { Release, ReleaseStatus } from "../../shared/release/model.ts";
import type { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import type { MemorySyncStateStore } from "../../shared/store/sync-state-memory.ts";
import type { SyncInput } from "../../shared/usecases/sync.ts";
import { syncOnSimulator } from "../support/sync-sim.ts";

const CLUSTER = "shared-cluster";
let store: MemoryReleaseStore;
let syncState: MemorySyncStateStore;
const stack = syncOnSimulator(CLUSTER);
const { cluster, key } = stack;

const REAL = "kind: Deployment\nmetadata:\n  name: api\n";
const FORGED = "kind: ConfigMap\nmetadata:\n  name: all-is-well\n";

function release(
  name: string,
  namespace: string,
  version: number,
  manifest = REAL,
  status: ReleaseStatus = "deployed",
): Release {
  return {
    name,
    namespace,
    version,
    manifest: `---\n${manifest}`,
    info: { status, last_deployed: "2026-12-03T10:00:00Z", description: "Upgrade complete" },
    chart: { metadata: { name: "demo", version: "0.1.0" } },
  };
}

/** Helm's exact encoding of `payload`, written as an object of `namespace` (what a tenant can create there). */
function forged(kind: "Secret" | "ConfigMap", namespace: string, payload: Release) {
  const object = kind === "Secret" ? encodeHelmSecret(payload) : encodeHelmConfigMap(payload);
  return { ...object, metadata: { ...object.metadata, namespace } };
}

const ns = (name: string) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
const sync = (input: Partial<SyncInput> = {}) => stack.sync({ store, syncState }, input);
const versions = async (namespace: string, name: string) =>
  (await store.history(key(namespace, name))).items.map((r) => r.version);

describe("forged release objects", { concurrency: false }, () => {
  beforeEach(() => {
    ({ store, syncState } = stack.fresh());
    for (const namespace of ["shop", "team-a", "kube-system"]) {
      for (const kind of ["Secret", "ConfigMap"]) {
        for (const object of cluster().list("v1", kind, namespace)) {
          cluster().remove("v1", kind, String(object.metadata?.name), namespace);
        }
      }
    }
    cluster().apply([ns("shop"), ns("team-a"), ns("kube-system")]);
    cluster().apply([
      encodeHelmSecret(release("api", "shop", 1, REAL, "superseded")),
      encodeHelmSecret(release("api", "shop", 2)),
    ]);
  });

  test("full sync: a forged Secret and a forged ConfigMap in team-a never replace shop/api", async () => {
    cluster().apply([
      forged("Secret", "team-a", release("api", "shop", 2, FORGED)),
      forged("ConfigMap", "team-a", release("api", "shop", 3, FORGED)),
    ]);
    const summary = await sync();
    assert.equal(summary.complete, true);
    assert.equal(summary.failed, 2);
    assert.deepEqual(summary.failures.map((f) => f.object).sort(), [
      "ConfigMap/team-a/sh.helm.release.v1.api.v3",
      "Secret/team-a/sh.helm.release.v1.api.v2",
    ]);
    for (const failure of summary.failures) {
      assert.match(failure.error, /another namespace.*Helm's identity rule/);
      assert.equal(failure.release, "team-a/api", "named by the object's own identity");
      assert.ok(!failure.error.includes("all-is-well") && !failure.error.includes("shop"), "no payload quoted");
    }
    assert.equal(summary.removed, 0);
    const latest = await store.getLatest(key("shop", "api"));
    assert.equal(latest.version, 2);
    assert.equal(latest.manifest, `---\n${REAL}`);
    assert.deepEqual(await versions("shop", "api"), [2, 1]);
    await assert.rejects(store.getLatest(key("team-a", "api")), { name: "ReleaseNotFoundError" });
    assert.deepEqual(await store.revisionSources(key("shop", "api")), [
      { revision: 2, source: sourceOf("Secret", "shop", "api", 2) },
      { revision: 1, source: sourceOf("Secret", "shop", "api", 1) },
    ]);

    // Deleting the forgeries removes nothing of shop's.
    cluster().remove("v1", "Secret", "sh.helm.release.v1.api.v2", "team-a");
    cluster().remove("v1", "ConfigMap", "sh.helm.release.v1.api.v3", "team-a");
    const after = await sync();
    assert.deepEqual([after.failed, after.removed, after.complete], [0, 0, true]);
    assert.deepEqual(await versions("shop", "api"), [2, 1]);
  });

  test("a ConfigMap in shop (which more tenants may write) never replaces a revision Helm's Secret holds", async () => {
    cluster().apply([encodeHelmConfigMap(release("api", "shop", 2, FORGED))]);
    for (const run of [1, 2]) {
      const summary = await sync();
      assert.deepEqual([summary.failed, summary.removed], [1, 0], `run ${run}`);
      assert.equal(summary.failures[0].object, "ConfigMap/shop/sh.helm.release.v1.api.v2");
      assert.match(summary.failures[0].error, /held by Helm's Secret/);
      assert.equal((await store.getLatest(key("shop", "api"))).manifest, `---\n${REAL}`);
    }
    cluster().remove("v1", "ConfigMap", "sh.helm.release.v1.api.v2", "shop");
  });

  test("namespace-scoped sync: a fake kube-system release written from team-a never appears", async () => {
    cluster().apply([
      forged("Secret", "team-a", release("coredns", "kube-system", 1, FORGED)),
      forged("ConfigMap", "team-a", release("metrics", "kube-system", 1, FORGED)),
      encodeHelmSecret(release("own", "team-a", 1)),
    ]);
    const summary = await sync({ namespaces: ["team-a"] });
    assert.equal(summary.complete, true);
    assert.deepEqual([summary.imported, summary.failed], [1, 2]);
    assert.deepEqual(
      (await store.listReleases({ cluster: CLUSTER })).items.map((r) => `${r.namespace}/${r.name}`),
      ["team-a/own"],
    );
    // And again: the refused objects are remembered, not read again, still reported.
    cluster().resetStats();
    const again = await sync({ namespaces: ["team-a"] });
    assert.equal(again.fetched, 0);
    assert.equal(again.failed, 2);
    assert.deepEqual((await store.listReleases({ cluster: CLUSTER })).items.length, 1);
  });

  test("a store an older version filled with forgeries is repaired by the next full sync", async () => {
    // shop/web: the cluster holds revisions 2 and 3 (1 was pruned).
    cluster().apply([
      encodeHelmSecret(release("web", "shop", 2, REAL, "superseded")),
      encodeHelmSecret(release("web", "shop", 3)),
    ]);
    await sync();
    // What the older sync left: shop/api 2 replaced by a forged payload, a fake kube-system release, a forged
    // shop/web revision 1 under the held ones; none with provenance; its object records without the rule's mark.
    cluster().apply([
      forged("Secret", "team-a", release("api", "shop", 2, FORGED)),
      forged("ConfigMap", "team-a", release("coredns", "kube-system", 1, FORGED)),
    ]);
    await store.removeRevision(key("shop", "api"), 2);
    await store.putRevision(CLUSTER, release("api", "shop", 2, FORGED));
    await store.putRevision(CLUSTER, release("coredns", "kube-system", 1, FORGED));
    await store.putRevision(CLUSTER, release("web", "shop", 1, FORGED, "superseded"));
    const old = (await syncState.objects(CLUSTER)).map(({ checked: _checked, ...record }) => record);
    const uid = (kind: string, namespace: string, name: string) =>
      String(cluster().get("v1", kind, name, namespace)?.metadata?.uid);
    const rv = (kind: string, namespace: string, name: string) =>
      String(cluster().get("v1", kind, name, namespace)?.metadata?.resourceVersion);
    const oldRecord = (kind: "Secret" | "ConfigMap", name: string, release: string, revision: number) => ({
      object: `${kind}/team-a/${name}`,
      uid: uid(kind, "team-a", name),
      resourceVersion: rv(kind, "team-a", name),
      namespace: "team-a",
      release,
      revision,
      status: "deployed",
    });
    await syncState.writeObjects(
      CLUSTER,
      [
        ...old,
        oldRecord("Secret", "sh.helm.release.v1.api.v2", "api", 2),
        oldRecord("ConfigMap", "sh.helm.release.v1.coredns.v1", "coredns", 1),
      ],
      [],
    );
    await syncState.saveState(CLUSTER, {});

    const repair = await sync();
    assert.equal(repair.complete, true);
    assert.equal((await store.getLatest(key("shop", "api"))).manifest, `---\n${REAL}`, "the real revision 2 again");
    await assert.rejects(store.getLatest(key("kube-system", "coredns")), { name: "ReleaseNotFoundError" });
    assert.deepEqual(await versions("shop", "web"), [3, 2]);
    assert.deepEqual(repair.removals.map((r) => `${r.release}#${r.revision}`).sort(), [
      "kube-system/coredns#1",
      "shop/api#2",
      "shop/web#1",
    ]);
    assert.equal(repair.failed, 2, "the forgeries, named");

    // Repaired once: the next full sync only LISTs.
    const next = await sync();
    assert.deepEqual([next.fetched, next.removed, next.failed], [0, 0, 2]);
  });
});

function sourceOf(kind: string, namespace: string, name: string, revision: number) {
  const object = cluster().get("v1", kind, `sh.helm.release.v1.${name}.v${revision}`, namespace);
  return {
    kind,
    namespace,
    uid: object?.metadata?.uid,
    resourceVersion: object?.metadata?.resourceVersion,
    via: "sync",
  };
}
