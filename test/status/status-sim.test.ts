import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { clearDiscoveryCache } from "../../shared/kube/discovery.ts";
import { closeKubeConnections } from "../../shared/kube/http.ts";
import { silentLogger } from "../../shared/ports.ts";
import type { Release } from "../../shared/release/model.ts";
import { renderStatusJson, renderStatusYaml } from "../../shared/status/render-json.ts";
import { renderStatusText } from "../../shared/status/render-text.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { releaseStatus, type StatusOptions, type StatusRequest } from "../../shared/usecases/status.ts";
import { capture, demoRelease } from "./captures.ts";
import { type CountingConnector, simConnector } from "./sim-connector.ts";

/**
 * The engine against the simulated EKS (HTTPS, EKS token auth, server-side
 * Tables): one simulator for the whole file, one namespace per scenario.
 */

const CLUSTER = "status-sim";
const clock = { now: () => new Date() };
let sim: SimulatedEks;
let connector: CountingConnector;

before(async () => {
  sim = await startSimulatedEks({ clusters: [{ name: CLUSTER }], seed: 7 });
  connector = simConnector(sim);
});

after(async () => {
  await closeKubeConnections();
  await sim.stop();
});

const cluster = () => sim.cluster(CLUSTER);

function releaseOf(name: string, namespace: string, manifest: string, overrides: Partial<Release> = {}): Release {
  return {
    name,
    namespace,
    version: 1,
    info: { status: "deployed", last_deployed: "2026-12-02T14:40:15Z", description: "Install complete" },
    chart: { metadata: { name, version: "0.1.0" } },
    manifest,
    hooks: [],
    ...overrides,
  };
}

async function statusOf(
  release: Release,
  request: Partial<StatusRequest> = {},
  options: StatusOptions = {},
  clusters = connector,
) {
  const store = new MemoryReleaseStore();
  await store.putRevision(CLUSTER, release);
  return releaseStatus(
    { store, clusters, clock, logger: silentLogger, options: { random: () => 0, ...options } },
    { cluster: CLUSTER, namespace: release.namespace, name: release.name, ...request },
  );
}

const configMap = (name: string, namespace?: string) =>
  `---\n# Source: c/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${namespace ? `  namespace: ${namespace}\n` : ""}data:\n  a: b\n`;

describe("the helm create demo on the simulated EKS", () => {
  test("every group, the related pods (test pod included) and the request count of one fan-out", async () => {
    clearDiscoveryCache();
    cluster().materialize(capture("helm-create-demo-manifest.yaml"));
    cluster().resetStats();
    const report = await statusOf(demoRelease());
    const text = renderStatusText(report, { health: false });
    const headers = text.split("\n").filter((line) => line.startsWith("==> "));
    assert.deepEqual(headers, ["==> v1/ServiceAccount", "==> v1/Service", "==> v1/Deployment", "==> v1/Pod(related)"]);
    assert.match(
      text,
      /==> v1\/Deployment\nNAME {3}READY {3}UP-TO-DATE {3}AVAILABLE {3}AGE\ndemo {3}1\/1 {5}1 {12}1 {11}\S+\n/,
    );
    assert.match(
      text,
      /==> v1\/Pod\(related\)\nNAME +READY +STATUS +RESTARTS +AGE\ndemo-\S+ +1\/1 +Running +0 +\S+\ndemo-test-connection +0\/1 +Completed +0 +\S+\n\n\n/,
    );
    assert.equal(report.complete, true);
    assert.equal(report.health.overall, "Current");
    // Discovery (/api, /apis) + 3 GETs + 1 pods LIST, nothing else.
    assert.equal(report.counters.requests, 6);
    const stats = cluster().stats();
    assert.equal(stats.total, 6);
    for (const entry of stats.log.filter((e) => !e.path.startsWith("/api") || e.path.split("/").length > 3)) {
      assert.equal(
        entry.accept,
        "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json",
      );
      assert.match(entry.query, /^includeObject=Object/);
    }
    const podList = stats.log.find((e) => e.path === "/api/v1/namespaces/default/pods");
    assert.equal(
      podList?.query,
      "includeObject=Object&labelSelector=app.kubernetes.io%2Finstance%3Ddemo%2Capp.kubernetes.io%2Fname%3Ddemo",
    );
  });

  test("a warm cluster skips discovery: one request per resource and selector", async () => {
    cluster().resetStats();
    const report = await statusOf(demoRelease());
    assert.equal(report.counters.requests, 4);
    assert.deepEqual(
      Object.keys(cluster().stats().byPath).filter((path) => path === "/api" || path === "/apis"),
      [],
    );
  });
});

describe("what could not be read is reported per resource", () => {
  test("deleted out of band: ==> MISSING, and no related pods for the missing workload", async () => {
    const manifest = capture("helm-create-demo-manifest.yaml").replace(
      /---\n# Source: demo\/templates\/tests[\s\S]*$/,
      "",
    );
    cluster().materialize(manifest, { namespace: "gone", omit: ["Deployment/demo", "Service/demo"] });
    const report = await statusOf(releaseOf("demo", "gone", manifest));
    const text = renderStatusText(report);
    assert.match(
      text,
      /==> MISSING\nKIND {12}NAME {3}REASON\nv1\/Service {6}demo {3}not found\nv1\/Deployment {3}demo {3}not found\n/,
    );
    assert.doesNotMatch(text, /Pod\(related\)/);
    assert.equal(report.health.overall, "Failed");
    assert.equal(report.complete, true, "a 404 is an answer");
  });

  test("403: forbidden for that resource only", async () => {
    const manifest = configMap("open") + "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: closed\ntype: Opaque\n";
    cluster().apply(
      manifest.replace(/^---\n# Source.*\n/gm, "---\n").replace(/\n(metadata:\n)/g, "\n$1  namespace: deny\n"),
    );
    cluster().deny({ resource: "secrets", namespace: "deny" });
    try {
      const report = await statusOf(releaseOf("deny", "deny", manifest));
      assert.deepEqual(
        report.missing.map((m) => [m.kind, m.name, m.reason]),
        [["Secret", "closed", "forbidden"]],
      );
      assert.match(report.missing[0].message!, /secrets "closed" is forbidden|is forbidden/);
      assert.equal(report.resources.length, 1);
      assert.equal(report.complete, false);
    } finally {
      cluster().allowAll();
    }
  });

  test("a kind the cluster does not serve is reported; installing its CRD later is picked up by one refresh", async () => {
    const widget = "---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\n";
    const manifest = configMap("cm") + widget;
    cluster().apply(configMap("cm", "crd").replace(/^---\n# Source.*\n/m, ""));
    const first = await statusOf(releaseOf("crd", "crd", manifest));
    assert.deepEqual(
      first.missing.map((m) => [m.kind, m.name, m.reason, m.message]),
      [["Widget", "w1", "unknown kind", 'no matches for kind "Widget" in version "example.com/v1"']],
    );
    assert.match(
      renderStatusText(first),
      /v1\/Widget {3}w1 {5}unknown kind: no matches for kind "Widget" in version "example.com\/v1"/,
    );
    assert.equal(first.resources.length, 1, "the rest is still printed");

    cluster().apply([
      {
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: "widgets.example.com" },
        spec: {
          group: "example.com",
          scope: "Namespaced",
          names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
          versions: [
            {
              name: "v1",
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
            },
          ],
        },
      },
    ]);
    cluster().apply([{ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w1", namespace: "crd" } }]);
    const second = await statusOf(releaseOf("crd", "crd", manifest));
    assert.deepEqual(second.missing, []);
    assert.match(renderStatusText(second), /==> v1\/Widget\nNAME {3}AGE\nw1 {5}\S+\n/);
  });
});
