import assert from "node:assert/strict";
import { createServer } from "node:net";
import { test } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import type { ClusterConnector } from "../../shared/clusters/connector.ts";
import { ClusterUnreachableError, UnknownClusterError } from "../../shared/clusters/errors.ts";
import { accessFromKubeConfig } from "../../shared/clusters/kubeconfig-access.ts";
import { ValidationError } from "../../shared/errors.ts";
import { createKubeReader, type KubeReaderOptions } from "../../shared/kube/reader.ts";
import { silentLogger } from "../../shared/ports.ts";
import type { Release, ReleaseStatus } from "../../shared/release/model.ts";
import { renderStatusJson, renderStatusYaml } from "../../shared/render/status/json.ts";
import { renderStatusText } from "../../shared/render/status/text.ts";
import { ReleaseChartMissingError, ReleaseInfoMissingError } from "../../shared/status/errors.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import type { ReleaseStore } from "../../shared/store/release-store.ts";
import { releaseStatus, type StatusDeps } from "../../shared/usecases/status.ts";

/** Seed semantics of GetReleaseStatus / helm v4 `status`, with the store's real in-memory implementation. */

const clock = { now: () => new Date("2026-12-02T15:41:00Z") };
const key = { cluster: "c1", namespace: "default", name: "demo" };

function release(version: number, status: ReleaseStatus, manifest = "") {
  return {
    name: "demo",
    namespace: "default",
    version,
    info: { status, description: `rev ${version}`, last_deployed: "2026-12-02T14:40:15Z" },
    chart: { metadata: { name: "demo", version: "0.1.0" } },
    config: { password: "config-value-never-shown" },
    manifest,
    hooks: [],
  } satisfies Release;
}

/** A connector that must not be used: reading a release with nothing to read never touches the cluster. */
const noCluster: ClusterConnector = {
  list: () => [{ name: "c1", region: "" }],
  access: async () => assert.fail("the cluster was contacted"),
  invalidate: () => {},
};

function deps(
  store: ReleaseStore,
  clusters: ClusterConnector = noCluster,
  tuning: Partial<KubeReaderOptions> = {},
): StatusDeps {
  return { store, kube: createKubeReader({ connector: clusters, clock, ...tuning }), logger: silentLogger };
}

async function storeWith(...releases: Release[]) {
  const store = new MemoryReleaseStore();
  for (const r of releases) await store.putRevision("c1", r);
  return store;
}

test("an invalid name is Helm v4's releaseContent error, before any read", async () => {
  const store = await storeWith();
  await assert.rejects(releaseStatus(deps(store), { ...key, name: "Bad_Name" }), (error: Error) => {
    assert.ok(error instanceof ValidationError);
    assert.equal(error.message, "releaseContent: Release name is invalid: Bad_Name");
    return true;
  });
  await assert.rejects(releaseStatus(deps(store), { ...key, name: "" }), /releaseContent: Release name is invalid: $/);
  await assert.rejects(releaseStatus(deps(store), { ...key, namespace: "Not OK" }), ValidationError);
  await assert.rejects(releaseStatus(deps(store), { ...key, cluster: "bad#cluster" }), ValidationError);
});

test("revision absent or <= 0 is the highest revision of any status; a given one is exact", async () => {
  const store = await storeWith(release(1, "superseded"), release(2, "deployed"), release(3, "failed"));
  for (const revision of [undefined, 0, -1]) {
    const report = await releaseStatus(deps(store), { ...key, revision });
    assert.equal(report.release.version, 3, `revision ${revision}`);
    assert.equal(report.release.info.status, "failed");
  }
  assert.equal((await releaseStatus(deps(store), { ...key, revision: 1 })).release.version, 1);
  await assert.rejects(releaseStatus(deps(store), { ...key, revision: 9 }), { message: "release: not found" });
  await assert.rejects(releaseStatus(deps(store), { ...key, revision: 1.5 }), ValidationError);
  await assert.rejects(releaseStatus(deps(store), { ...key, name: "other" }), { message: "release: not found" });
});

test("missing info and missing chart are the seed's errors", async () => {
  const noChart = { ...release(1, "deployed"), chart: undefined };
  await assert.rejects(releaseStatus(deps(await storeWith(noChart)), key), (error: Error) => {
    assert.ok(error instanceof ReleaseChartMissingError);
    assert.equal(error.message, "release chart is missing");
    return true;
  });
  // The real stores refuse a release without info, so only a stand-in can return one.
  const damaged = { ...(await storeWith()), getLatest: async () => ({ ...release(1, "deployed"), info: undefined }) };
  await assert.rejects(releaseStatus(deps(damaged as unknown as ReleaseStore), key), (error: Error) => {
    assert.ok(error instanceof ReleaseInfoMissingError);
    assert.equal(error.message, "release info is missing");
    return true;
  });
});

test("a release without manifest resources: header only, no cluster contact (without the freshness LIST), config never shown", async () => {
  const report = await releaseStatus(deps(await storeWith(release(1, "deployed"))), { ...key, freshness: false });
  assert.equal(report.counters.requests, 0);
  assert.deepEqual(report.resources, []);
  assert.equal(report.complete, true);
  assert.equal(report.observedAt, "2026-12-02T15:41:00.000Z");
  for (const text of [JSON.stringify(report), renderStatusJson(report), renderStatusYaml(report)]) {
    assert.doesNotMatch(text, /config-value-never-shown/);
  }
  assert.equal(
    renderStatusText(report),
    "NAME: demo\nLAST DEPLOYED: Wed Dec  2 14:40:15 2026\nNAMESPACE: default\nSTATUS: deployed\nREVISION: 1\n" +
      "DESCRIPTION: rev 1\nHEALTH: Current (kstatus: all 0 resources Current)\nTEST SUITE: None\n",
  );
});

/** A port on 127.0.0.1 that nothing listens on: a real "connection refused". */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function refusingConnector(): Promise<ClusterConnector> {
  const port = await closedPort();
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: "c1", server: `https://127.0.0.1:${port}`, skipTLSVerify: false }],
    users: [{ name: "u", token: "t" }],
    contexts: [{ name: "c1", cluster: "c1", user: "u" }],
    currentContext: "c1",
  });
  return {
    list: () => [{ name: "c1", region: "" }],
    access: () => accessFromKubeConfig(kubeConfig),
    invalidate: () => {},
  };
}

const manifest = "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: demo\n";

test("an unreachable cluster fails a deployed release, but an uninstalled or failed one gets a report", async () => {
  const clusters = await refusingConnector();
  const tuning = { timeouts: { maxAttempts: 2 }, random: () => 0 };
  const readers: StatusDeps["kube"][] = [];
  const depsOf = (store: ReleaseStore) => {
    const made = deps(store, clusters, tuning);
    readers.push(made.kube);
    return made;
  };
  try {
    const deployed = await storeWith(release(1, "deployed", manifest));
    await assert.rejects(
      releaseStatus(depsOf(deployed), key),
      (error: Error) =>
        error instanceof ClusterUnreachableError && /kubernetes cluster unreachable/.test(error.message),
    );
    for (const status of ["uninstalled", "failed"] as const) {
      const store = await storeWith(release(1, status, manifest));
      const report = await releaseStatus(depsOf(store), key);
      assert.equal(report.complete, false);
      assert.equal(report.missing.length, 1);
      assert.equal(report.missing[0].reason, "error");
      assert.match(report.missing[0].message!, /kubernetes cluster unreachable/);
      assert.match(renderStatusText(report), /==> MISSING\nKIND {9}NAME {3}REASON\nv1\/Service {3}demo {3}error: /);
    }
  } finally {
    await Promise.all(readers.map((reader) => reader.close()));
  }
});

test("unreachable: an uninstalled release is Unknown (nothing was seen gone), each resource cites its own read", async () => {
  const clusters = await refusingConnector();
  const tuning = { timeouts: { maxAttempts: 1 }, random: () => 0 };
  // A Deployment (its related-pods LIST goes out in the same wave) and a Service.
  const two = `${manifest}---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels: {app: web}\n`;
  const store = await storeWith(release(1, "uninstalled", two));
  const made = deps(store, clusters, tuning);
  try {
    const report = await releaseStatus(made, key);
    assert.equal(report.health.overall, "Unknown");
    assert.equal(report.health.message, "uninstalled, 2 of 2 resources could not be read");
    assert.match(
      renderStatusText(report),
      /^HEALTH: Unknown \(kstatus: uninstalled, 2 of 2 resources could not be read\)$/m,
    );
    assert.deepEqual(
      report.missing.map((m) => m.message?.replace(/: connect ECONNREFUSED .*$/, "")),
      [
        'kubernetes cluster unreachable: "c1": GET /api/v1/namespaces/default/services/demo: request failed: ECONNREFUSED',
        'kubernetes cluster unreachable: "c1": GET /apis/apps/v1/namespaces/default/deployments/web: request failed: ECONNREFUSED',
      ],
    );
  } finally {
    await made.kube.close();
  }
});

test("a release whose only manifest document cannot be read is not Current", async () => {
  for (const status of ["deployed", "uninstalled"] as const) {
    const store = await storeWith(release(1, status, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [\n"));
    const report = await releaseStatus(deps(store), key);
    assert.equal(report.health.overall, "Unknown", status);
    assert.equal(report.missing[0].reason, "error");
  }
});

test("an unknown cluster is the caller's mistake: thrown even for an uninstalled release", async () => {
  const store = await storeWith(release(1, "uninstalled", manifest));
  const unknown: ClusterConnector = {
    list: () => [],
    access: async (cluster) => {
      throw new UnknownClusterError(cluster, { known: [] });
    },
    invalidate: () => {},
  };
  await assert.rejects(releaseStatus(deps(store, unknown), key), UnknownClusterError);
});
