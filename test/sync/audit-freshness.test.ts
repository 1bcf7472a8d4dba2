/**
 * The scheduled audit sees the cluster's truth after a helm change (docs/sync.md, "Audits"): helm wrote a newer
 * release Secret since the last sync, and one audit pass — the in-process path of `cli audit`, with no sync and
 * no import — snapshots that revision, not the stored one, and leaves the store as it was.
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
import { MemorySnapshotStore } from "../../shared/snapshots/memory-snapshot-store.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { runAuditPass } from "../../shared/usecases/audit-run.ts";
import { simConnector } from "../status/sim-connector.ts";

const CLUSTER = "audit-fresh";
const KEY = { cluster: CLUSTER, namespace: "shop", name: "web" };
let sim: SimulatedEks;
let kube: KubeReader;
let store: MemoryReleaseStore;
let snapshots: MemorySnapshotStore;
const cluster = () => sim.cluster(CLUSTER);

/** Revision 3 adds a ConfigMap the cluster does not have: its snapshot says MISSING, revision 2's does not. */
function release(version: number, status: ReleaseStatus = "deployed"): Release {
  const names = version >= 3 ? ["a", "b", "absent"] : ["a", "b"];
  return {
    name: "web",
    namespace: "shop",
    version,
    manifest: names
      .map((n) => `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-${n}\ndata:\n  rev: "${version}"\n`)
      .join(""),
    info: { status, last_deployed: "2026-12-03T10:00:00Z", description: "Upgrade complete" },
    chart: { metadata: { name: "web", version: "0.1.0" } },
  };
}

let runs = 0;
async function auditOnce() {
  const result = await runAuditPass(
    {
      store,
      snapshots,
      clusters: kube.connector,
      kube,
      scope: registryScope([{ name: CLUSTER, region: "eu-west-1" }]),
      clock: systemClock,
      logger: silentLogger,
      metrics: silentMetrics,
      limiter: new ClusterLimiter(4),
      retentionDays: 30,
    },
    { runId: `run-${++runs}`, cluster: CLUSTER },
  );
  assert.equal(result.releases.length, 1, JSON.stringify(result.releases));
  const snapshot = await snapshots.latest(KEY);
  assert.ok(snapshot, "a snapshot");
  return snapshot;
}

before(async () => {
  sim = await startSimulatedEks({ clusters: [{ name: CLUSTER }] });
  kube = createKubeReader({ connector: simConnector(sim) });
  cluster().apply([
    { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } },
    ...["a", "b"].map((n) => ({
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

describe("the audit after a helm change", { concurrency: false }, () => {
  beforeEach(async () => {
    store = new MemoryReleaseStore();
    snapshots = new MemorySnapshotStore();
    for (const version of [1, 2, 3]) cluster().remove("v1", "Secret", `sh.helm.release.v1.web.v${version}`, "shop");
    await store.putRevision(CLUSTER, release(1, "superseded"));
    await store.putRevision(CLUSTER, release(2));
    cluster().apply([encodeHelmSecret(release(1, "superseded")), encodeHelmSecret(release(2))]);
  });

  test("the store is the cluster's: the stored revision is audited", async () => {
    const snapshot = await auditOnce();
    assert.equal(snapshot.revision, 2);
    assert.deepEqual(snapshot.missing, []);
  });

  test("helm upgraded since the last sync: the audit snapshots the cluster's revision, with no sync", async () => {
    // What `helm upgrade` writes: the old revision superseded, the new one deployed.
    cluster().apply([encodeHelmSecret(release(2, "superseded")), encodeHelmSecret(release(3))]);
    const snapshot = await auditOnce();
    assert.equal(snapshot.revision, 3);
    assert.equal(snapshot.releaseStatus, "deployed");
    assert.deepEqual(
      snapshot.missing.map((m) => m.name),
      ["web-absent"],
    );
    // Read in memory, never written: the store still says 2 until the sync imports 3.
    const stored = await store.getLatest(KEY);
    assert.equal(stored.version, 2);
  });
});
