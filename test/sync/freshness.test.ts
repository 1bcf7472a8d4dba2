/**
 * A status's freshness check (docs/status.md "STORED") on the simulated EKS: one LIST of the release's storage
 * objects in the same wave as the resource GETs, a newer revision read and answered for (never written), and
 * every way it cannot be checked. The audit uses the same check (docs/sync.md "Audits after a helm change"):
 * after a helm upgrade, one audit pass with no sync snapshots the cluster's revision.
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { silentMetrics } from "../../shared/audit/change-events.ts";
import { ClusterLimiter } from "../../shared/audit/cluster-limiter.ts";
import { registryScope } from "../../shared/clusters/scope.ts";
import { createKubeReader, type KubeReader } from "../../shared/kube/reader.ts";
import { silentLogger, systemClock } from "../../shared/ports.ts";
import { encodeHelmSecret } from "../../shared/release/helm-codec.ts";
import type { Release, ReleaseStatus } from "../../shared/release/model.ts";
import { renderStatusJson } from "../../shared/render/status/json.ts";
import { renderStatusText } from "../../shared/render/status/text.ts";
import { type HistoryStores, memoryHistoryStores } from "../../shared/snapshots/history-stores.ts";
import { runIdFor } from "../../shared/snapshots/model.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { runAuditPass } from "../../shared/usecases/audit-run.ts";
import { releaseStatus, type StatusRequest } from "../../shared/usecases/status.ts";
import { simConnector } from "../status/sim-connector.ts";

const CLUSTER = "fresh";
let sim: SimulatedEks;
let kube: KubeReader;
let store: MemoryReleaseStore;
const cluster = () => sim.cluster(CLUSTER);

function release(version: number, status: ReleaseStatus = "deployed"): Release {
  const manifest = ["a", "b", "c"]
    .map((n) => `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-${n}\ndata:\n  rev: "${version}"\n`)
    .join("");
  return {
    name: "web",
    namespace: "shop",
    version,
    manifest:
      version >= 3
        ? `${manifest}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-new\ndata: {}\n`
        : manifest,
    info: { status, last_deployed: "2026-12-03T10:00:00Z", description: "Upgrade complete" },
    chart: { metadata: { name: "web", version: "0.1.0" } },
  };
}

const status = (request: Partial<StatusRequest> = {}) =>
  releaseStatus(
    { store, kube, logger: silentLogger },
    { cluster: CLUSTER, namespace: "shop", name: "web", drift: false, deadline: Date.now() + 20_000, ...request },
  );

before(async () => {
  sim = await startSimulatedEks({ clusters: [{ name: CLUSTER }] });
  kube = createKubeReader({ connector: simConnector(sim) });
  cluster().apply([
    { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } },
    ...["a", "b", "c", "new"].map((n) => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `web-${n}`, namespace: "shop" },
    })),
  ]);
});
after(async () => {
  await kube?.close();
  await sim?.stop();
});

describe("freshness at status time", { concurrency: false }, () => {
  beforeEach(() => {
    store = new MemoryReleaseStore();
    cluster().faults.clear();
    cluster().allowAll();
    for (const version of [1, 2, 3]) cluster().remove("v1", "Secret", `sh.helm.release.v1.web.v${version}`, "shop");
  });

  test("the stored revision is the cluster's: one LIST in the same wave as the GETs", async () => {
    await store.putRevision(CLUSTER, release(1, "superseded"));
    await store.putRevision(CLUSTER, release(2));
    cluster().apply([encodeHelmSecret(release(1, "superseded")), encodeHelmSecret(release(2))]);
    cluster().faults.set({ latencyMs: 40 });
    cluster().resetStats();
    const report = await status();
    const text = renderStatusText(report);
    assert.match(text, /^HEALTH: .*\nSTORED: revision 2 matches the cluster\n/m);
    assert.deepEqual(JSON.parse(renderStatusJson(report)).freshness, {
      state: "matches",
      storedRevision: 2,
      clusterRevision: 2,
      revision: 2,
      message: "revision 2 matches the cluster",
    });
    const stats = cluster().stats();
    const lists = stats.log.filter((r) => r.path === "/api/v1/namespaces/shop/secrets");
    assert.equal(lists.length, 1);
    assert.equal(lists[0].query, "labelSelector=name%3Dweb%2Cowner%3Dhelm");
    assert.match(lists[0].accept, /as=PartialObjectMetadataList/);
    assert.equal(stats.total, 4, "3 GETs and the LIST");
    assert.equal(stats.maxInFlight, 4, "all four in flight at once: one wave");
  });

  test("the cluster has a newer revision: read, decoded in memory and answered for; the store is not written", async () => {
    await store.putRevision(CLUSTER, release(2));
    cluster().apply([encodeHelmSecret(release(2, "superseded")), encodeHelmSecret(release(3))]);
    const report = await status();
    assert.equal(report.release.version, 3);
    assert.ok(
      report.resources.some((r) => r.name === "web-new"),
      "the new revision's manifest was read",
    );
    assert.match(
      renderStatusText(report),
      /^REVISION: 3\n[\s\S]*^STORED: revision 2; the cluster has revision 3 \(read now, not yet synced\)$/m,
    );
    assert.equal(report.freshness?.state, "read-now");
    assert.equal((await store.getLatest({ cluster: CLUSTER, namespace: "shop", name: "web" })).version, 2);
  });

  test("nothing stored yet, the cluster has it: the status answers from the cluster", async () => {
    cluster().apply([encodeHelmSecret(release(1))]);
    const report = await status();
    assert.equal(report.release.version, 1);
    assert.equal(report.freshness?.message, "none; the cluster has revision 1 (read now, not yet synced)");
  });

  test("a newer revision that cannot be read in time: the stored one, and the line says so", async () => {
    await store.putRevision(CLUSTER, release(2));
    cluster().apply([encodeHelmSecret(release(3))]);
    cluster().faults.set({ latencyMs: 30_000, match: (path) => path.endsWith("/sh.helm.release.v1.web.v3") });
    const report = await status({ deadline: Date.now() + 1_500 });
    assert.equal(report.release.version, 2);
    assert.equal(report.freshness?.state, "cluster-newer");
    assert.match(
      report.freshness?.message ?? "",
      /^revision 2; the cluster has revision 3 \(not read in time: this status is for revision 2\)$/,
    );
  });

  test("a role that may not list Secrets: the status works from the store and says it was not checked", async () => {
    await store.putRevision(CLUSTER, release(2));
    cluster().deny({ resource: "secrets", verb: "list" });
    const report = await status();
    assert.equal(report.release.version, 2);
    assert.match(renderStatusText(report), /^STORED: not checked \(list secrets forbidden\)$/m);
    assert.equal(report.freshness?.state, "not-checked");
  });

  test("the cluster no longer holds the release, and an older revision asked for", async () => {
    await store.putRevision(CLUSTER, release(1, "superseded"));
    await store.putRevision(CLUSTER, release(2));
    const gone = await status();
    assert.equal(gone.freshness?.state, "not-in-cluster");
    assert.match(gone.freshness?.message ?? "", /no longer holds this release \(helm: release: not found\)/);
    cluster().apply([encodeHelmSecret(release(1, "superseded")), encodeHelmSecret(release(2))]);
    const older = await status({ revision: 1 });
    assert.equal(older.release.version, 1);
    assert.equal(older.freshness?.message, "revision 1 as asked; the cluster's latest is revision 2");
    const off = await status({ freshness: false });
    assert.equal(off.freshness, undefined);
    assert.doesNotMatch(renderStatusText(off), /^STORED:/m);
  });
});

/** One audit pass over the cluster, in process as `cli audit` runs it; the release's snapshot after it. */
async function auditOnce(history: HistoryStores, runName: string) {
  const result = await runAuditPass(
    {
      store,
      ...history,
      clusters: kube.connector,
      kube,
      scope: registryScope([{ name: CLUSTER, region: "eu-west-1" }]),
      clock: systemClock,
      logger: silentLogger,
      metrics: silentMetrics,
      limiter: new ClusterLimiter(4),
      retentionDays: 30,
    },
    { runId: runIdFor(new Date(), runName), cluster: CLUSTER },
  );
  assert.equal(result.releases.length, 1, JSON.stringify(result.releases));
  const snapshot = await history.snapshots.latest({ cluster: CLUSTER, namespace: "shop", name: "web" });
  assert.ok(snapshot, "a snapshot");
  return snapshot;
}

describe("freshness at audit time", { concurrency: false }, () => {
  beforeEach(async () => {
    store = new MemoryReleaseStore();
    cluster().faults.clear();
    cluster().allowAll();
    for (const version of [1, 2, 3]) cluster().remove("v1", "Secret", `sh.helm.release.v1.web.v${version}`, "shop");
    await store.putRevision(CLUSTER, release(1, "superseded"));
    await store.putRevision(CLUSTER, release(2));
    cluster().apply([encodeHelmSecret(release(1, "superseded")), encodeHelmSecret(release(2))]);
  });

  test("the store is the cluster's: the stored revision is audited", async () => {
    const snapshot = await auditOnce(memoryHistoryStores(), "same");
    assert.equal(snapshot.revision, 2);
    assert.deepEqual(snapshot.freshness, { state: "matches", clusterRevision: 2 }, "kept for the fleet's row");
    assert.ok(!snapshot.resources.some((r) => r.name === "web-new"));
  });

  test("helm upgraded since the last sync: one audit, no sync, snapshots the cluster's revision", async () => {
    const history = memoryHistoryStores();
    assert.equal((await auditOnce(history, "1-before")).revision, 2);
    // What `helm upgrade` writes: the old revision superseded, the new one deployed (with one more ConfigMap).
    cluster().apply([encodeHelmSecret(release(2, "superseded")), encodeHelmSecret(release(3))]);
    const snapshot = await auditOnce(history, "2-after");
    assert.equal(snapshot.revision, 3);
    assert.deepEqual(snapshot.freshness, { state: "read-now", clusterRevision: 3 });
    assert.equal(snapshot.releaseStatus, "deployed");
    assert.ok(
      snapshot.resources.some((r) => r.name === "web-new"),
      "revision 3's resources",
    );
    // Read in memory, never written: the store still says 2 until the sync imports 3.
    assert.equal((await store.getLatest({ cluster: CLUSTER, namespace: "shop", name: "web" })).version, 2);
  });

  test("the check refused (no list on secrets): the stored revision is audited, as before", async () => {
    cluster().apply([encodeHelmSecret(release(2, "superseded")), encodeHelmSecret(release(3))]);
    cluster().deny({ resource: "secrets", verb: "list" });
    const snapshot = await auditOnce(memoryHistoryStores(), "denied");
    assert.equal(snapshot.revision, 2);
    assert.equal(snapshot.freshness?.state, "not-checked");
  });
});
