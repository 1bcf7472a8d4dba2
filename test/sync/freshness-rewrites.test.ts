/**
 * Same-number rewrites at status time (issue #39, item 1) on the simulated EKS: Helm rewrites the latest revision
 * in place (`uninstall --keep-history`, a pending operation that ended, uninstall + install of a one-revision
 * release); the freshness check tells by the LIST's status label and the object's uid/resourceVersion against
 * the stored revision's provenance, and reads the cluster's object now instead of saying "matches".
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { createKubeReader, type KubeReader } from "../../shared/kube/reader.ts";
import { silentLogger } from "../../shared/ports.ts";
import { encodeHelmSecret } from "../../shared/release/helm-codec.ts";
import type { Release, ReleaseStatus } from "../../shared/release/model.ts";
import { renderStatusText } from "../../shared/render/status/text.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { MemorySyncStateStore } from "../../shared/store/sync-state-memory.ts";
import { releaseStatus } from "../../shared/usecases/status.ts";
import { syncCluster } from "../../shared/usecases/sync.ts";
import { simConnector } from "../status/sim-connector.ts";

const CLUSTER = "rewrites";
let sim: SimulatedEks;
let kube: KubeReader;
let store: MemoryReleaseStore;
const cluster = () => sim.cluster(CLUSTER);

function release(status: ReleaseStatus, configMap: string, description = "Install complete", version = 1): Release {
  return {
    name: "web",
    namespace: "shop",
    version,
    manifest: `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${configMap}\ndata: {}\n`,
    info: { status, last_deployed: "2026-12-03T10:00:00Z", description },
    chart: { metadata: { name: "web", version: "0.1.0" } },
  };
}

const status = (revision?: number) =>
  releaseStatus(
    { store, kube, logger: silentLogger },
    { cluster: CLUSTER, namespace: "shop", name: "web", drift: false, deadline: Date.now() + 20_000, revision },
  );
const sync = () =>
  syncCluster(
    { store, syncState: new MemorySyncStateStore(), kube, scope: kube.connector, logger: silentLogger },
    { cluster: CLUSTER, namespaces: ["shop"] },
  );

before(async () => {
  sim = await startSimulatedEks({ clusters: [{ name: CLUSTER }] });
  kube = createKubeReader({ connector: simConnector(sim) });
  cluster().apply([
    { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } },
    ...["web-a", "web-b"].map((name) => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name, namespace: "shop" },
    })),
  ]);
});
after(async () => {
  await kube?.close();
  await sim?.stop();
});

describe("freshness: same-number rewrites", { concurrency: false }, () => {
  beforeEach(() => {
    store = new MemoryReleaseStore();
    for (const v of [1, 2, 3]) cluster().remove("v1", "Secret", `sh.helm.release.v1.web.v${v}`, "shop");
  });

  test("helm uninstall --keep-history: the status label moved, the status reads the uninstalled revision now", async () => {
    cluster().apply([encodeHelmSecret(release("deployed", "web-a"))]);
    await sync();
    cluster().apply([encodeHelmSecret(release("uninstalled", "web-a", "Uninstallation complete"))]);
    const report = await status();
    assert.equal(report.release.info?.status, "uninstalled");
    assert.equal(report.freshness?.state, "read-now");
    assert.match(
      renderStatusText(report),
      /^STORED: revision 1 was rewritten in the cluster since it was stored \(read now, not yet synced\)$/m,
    );
    assert.equal(
      (await store.getLatest({ cluster: CLUSTER, namespace: "shop", name: "web" })).info?.status,
      "deployed",
    );
  });

  test("uninstall + install of a one-revision release: same number and label, another object; read now", async () => {
    cluster().apply([encodeHelmSecret(release("deployed", "web-a"))]);
    await sync();
    cluster().remove("v1", "Secret", "sh.helm.release.v1.web.v1", "shop");
    cluster().apply([encodeHelmSecret(release("deployed", "web-b"))]);
    const report = await status();
    assert.deepEqual(
      report.resources.map((r) => r.name),
      ["web-b"],
    );
    assert.equal(report.freshness?.state, "read-now");
  });

  test("nothing rewritten: the stored revision matches, nothing else read", async () => {
    cluster().apply([encodeHelmSecret(release("deployed", "web-a"))]);
    await sync();
    cluster().resetStats();
    const report = await status();
    assert.equal(report.freshness?.state, "matches");
    assert.equal(
      cluster()
        .stats()
        .log.filter((r) => r.path.includes("sh.helm.release")).length,
      0,
    );
  });

  test("uninstall + install with fewer revisions: the status is about the cluster's revision, not the stored one gone from it (#39 item 2)", async () => {
    cluster().apply([
      encodeHelmSecret(release("superseded", "web-a", "Install complete", 1)),
      encodeHelmSecret(release("deployed", "web-a", "Upgrade complete", 2)),
    ]);
    await sync();
    for (const v of [1, 2]) cluster().remove("v1", "Secret", `sh.helm.release.v1.web.v${v}`, "shop");
    cluster().apply([encodeHelmSecret(release("deployed", "web-b", "Install complete", 1))]);
    const report = await status();
    assert.equal(report.release.version, 1);
    assert.deepEqual(
      report.resources.map((r) => r.name),
      ["web-b"],
    );
    assert.equal(report.freshness?.state, "read-now");
    assert.match(
      renderStatusText(report),
      /^STORED: revision 2; the cluster holds up to revision 1 \(installed again since: read now, not yet synced\)$/m,
    );
  });

  test("--revision N of the cluster's newer, unsynced revision is read from the cluster; a revision neither has is not found (#39 item 3)", async () => {
    cluster().apply([encodeHelmSecret(release("deployed", "web-a", "Install complete", 1))]);
    await sync();
    cluster().apply([
      encodeHelmSecret(release("superseded", "web-a", "Install complete", 1)),
      encodeHelmSecret(release("deployed", "web-b", "Upgrade complete", 2)),
    ]);
    const report = await status(2);
    assert.equal(report.release.version, 2);
    assert.equal(report.release.info?.description, "Upgrade complete");
    assert.equal(report.freshness?.state, "read-now");
    assert.match(
      renderStatusText(report),
      /^STORED: revision 2 as asked: not stored yet, read from the cluster now \(not yet synced\); the cluster's latest is revision 2$/m,
    );
    // The stored revision asked by number stays the stored one.
    assert.equal((await status(1)).freshness?.state, "asked");
    await assert.rejects(
      status(3),
      (error: Error) => error.name === "ReleaseNotFoundError" || /not found/.test(error.message),
    );
  });
});
