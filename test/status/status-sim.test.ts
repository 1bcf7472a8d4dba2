import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { createKubeReader, type KubeReader, type KubeReaderOptions } from "../../shared/kube/reader.ts";
import { silentLogger } from "../../shared/ports.ts";
import type { Release } from "../../shared/release/model.ts";
import { renderStatusJson, renderStatusYaml } from "../../shared/render/status/json.ts";
import { renderStatusText } from "../../shared/render/status/text.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { releaseStatus, type StatusRequest } from "../../shared/usecases/status.ts";
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
/** The file's warm reader (shared discovery cache and pools); scenarios with their own options get their own. */
let reader: KubeReader;

before(async () => {
  sim = await startSimulatedEks({ clusters: [{ name: CLUSTER }], seed: 7 });
  connector = simConnector(sim);
  reader = createKubeReader({ connector, clock, random: () => 0 });
});

after(async () => {
  await reader.close();
  await sim.stop();
});

type ReaderTuning = Pick<KubeReaderOptions, "timeouts" | "limits">;

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
  tuning?: ReaderTuning,
  clusters = connector,
) {
  const store = new MemoryReleaseStore();
  await store.putRevision(CLUSTER, release);
  const own = tuning || clusters !== connector;
  const kube = own ? createKubeReader({ connector: clusters, clock, random: () => 0, ...tuning }) : reader;
  try {
    return await releaseStatus(
      { store, kube, logger: silentLogger },
      // The engine's own requests: the freshness LIST (docs/status.md "STORED") has its tests in test/sync/.
      { cluster: CLUSTER, namespace: release.namespace, name: release.name, freshness: false, ...request },
    );
  } finally {
    if (own) await kube.close();
  }
}

const configMap = (name: string, namespace?: string) =>
  `---\n# Source: c/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${namespace ? `  namespace: ${namespace}\n` : ""}data:\n  a: b\n`;

describe("the helm create demo on the simulated EKS", () => {
  test("every group, the related pods (test pod included) and the request count of one fan-out", async () => {
    reader.forgetDiscovery();
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
    // Built-in kinds need no discovery, even cold: 3 GETs + 1 pods LIST + 1 events LIST, nothing else.
    assert.equal(report.counters.requests, 5);
    const stats = cluster().stats();
    assert.equal(stats.total, 5);
    const events = stats.log.filter((e) => e.path === "/api/v1/namespaces/default/events");
    assert.deepEqual(
      events.map((e) => [e.accept, e.query]),
      [["application/json", "fieldSelector=type%3DWarning&limit=200"]],
    );
    const tables = stats.log.filter((e) => !events.includes(e));
    for (const entry of tables.filter((e) => !e.path.startsWith("/api") || e.path.split("/").length > 3)) {
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

  test("a warm cluster skips discovery: one request per resource and selector, and the events", async () => {
    cluster().resetStats();
    const report = await statusOf(demoRelease());
    assert.equal(report.counters.requests, 5);
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

  test("a Deployment whose pod is in CrashLoopBackOff is Failed (kstatus pod-controller rule), naming the pod", async () => {
    const manifest = capture("helm-create-demo-manifest.yaml").replace(
      /---\n# Source: demo\/templates\/tests[\s\S]*$/,
      "",
    );
    cluster().materialize(manifest, { namespace: "crashing", crashLoop: ["demo"] });
    const report = await statusOf(releaseOf("demo", "crashing", manifest));
    const deployment = report.health.resources.find((entry) => entry.kind === "Deployment");
    assert.equal(deployment?.status, "Failed");
    assert.match(deployment?.message ?? "", /CrashLoopBackOff/);
    assert.equal(report.health.overall, "Failed");
    assert.match(renderStatusText(report), /CrashLoopBackOff/);
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

describe("faults: retries, deadlines, timeouts, credentials", () => {
  const manifest = configMap("a") + configMap("b") + configMap("flaky");
  const isFlaky = (path: string) => path.endsWith("/configmaps/flaky");

  before(() => {
    cluster().apply(manifest.replace(/^# Source.*\n/gm, "").replace(/\n(metadata:\n)/g, "\n$1  namespace: faults\n"));
  });

  test("503 then 429 with Retry-After: retried and read; Retry-After is honoured", async () => {
    let seen = 0;
    cluster().faults.set({
      errorRate: 1,
      errorStatus: 503,
      retryAfterSeconds: 0,
      match: (path) => isFlaky(path) && ++seen <= 1,
    });
    try {
      const report = await statusOf(releaseOf("faults", "faults", manifest));
      assert.deepEqual(report.missing, []);
      assert.equal(report.counters.retries, 1);
      cluster().resetStats();
      seen = 0;
      cluster().faults.set({ errorStatus: 429, retryAfterSeconds: 1 });
      const again = await statusOf(releaseOf("faults", "faults", manifest));
      assert.deepEqual(again.missing, []);
      const attempts = cluster()
        .stats()
        .log.filter((entry) => isFlaky(entry.path));
      assert.deepEqual(
        attempts.map((entry) => entry.status),
        [429, 200],
      );
      assert.ok(attempts[1].startedAt - attempts[0].startedAt >= 990, "waited for Retry-After: 1");
    } finally {
      cluster().faults.clear();
    }
  });

  test("a resource that keeps failing is an error after the bounded attempts; the rest is read", async () => {
    cluster().faults.set({ errorRate: 1, errorStatus: 500, match: isFlaky });
    try {
      const report = await statusOf(releaseOf("faults", "faults", manifest), {}, { timeouts: { maxAttempts: 3 } });
      assert.deepEqual(
        report.missing.map((m) => [m.name, m.reason]),
        [["flaky", "error"]],
      );
      assert.match(
        report.missing[0].message!,
        /^HTTP 500: Internal error occurred: injected fault \(after 3 attempts\)$/,
      );
      assert.equal(report.resources.length, 2);
      assert.equal(report.counters.retries, 2);
      assert.equal(report.complete, false);
      assert.match(
        renderStatusText(report),
        /v1\/ConfigMap {3}flaky {3}error: HTTP 500: Internal error occurred: injected fault \(after 3 attempts\)/,
      );
    } finally {
      cluster().faults.clear();
    }
  });

  test("connection resets are retried", async () => {
    let seen = 0;
    cluster().faults.set({ resetRate: 1, match: (path) => isFlaky(path) && ++seen <= 2 });
    try {
      const report = await statusOf(releaseOf("faults", "faults", manifest));
      assert.deepEqual(report.missing, []);
      assert.equal(report.counters.retries, 2);
    } finally {
      cluster().faults.clear();
    }
  });

  test("the deadline: a slow resource is 'not read in time', the others are in the report", async () => {
    cluster().faults.set({ latencyMs: 3000, match: isFlaky });
    try {
      const report = await statusOf(releaseOf("faults", "faults", manifest), { deadline: Date.now() + 700 });
      assert.deepEqual(
        report.missing.map((m) => [m.name, m.reason]),
        [["flaky", "not read in time"]],
      );
      assert.equal(report.resources.length, 2);
      assert.equal(report.complete, false);
      assert.match(renderStatusText(report), /v1\/ConfigMap {3}flaky {3}not read in time/);
      assert.ok(report.counters.durationMs < 3000, "the slow answer was not waited for");
    } finally {
      cluster().faults.clear();
    }
  });

  test("a deadline already passed: nothing is requested, everything is 'not read in time'", async () => {
    cluster().resetStats();
    const report = await statusOf(releaseOf("faults", "faults", manifest), { deadline: Date.now() - 1 });
    assert.deepEqual(
      report.missing.map((m) => m.reason),
      ["not read in time", "not read in time", "not read in time"],
    );
    assert.equal(cluster().stats().total, 0);
  });

  test("the per-request timeout: a body that never finishes is abandoned and retried, then an error", async () => {
    cluster().faults.set({ slowBodyMs: 5000, match: isFlaky });
    try {
      const report = await statusOf(
        releaseOf("faults", "faults", manifest),
        {},
        { timeouts: { requestMs: 300, maxAttempts: 2 } },
      );
      assert.deepEqual(
        report.missing.map((m) => [m.name, m.reason]),
        [["flaky", "error"]],
      );
      assert.match(report.missing[0].message!, /no answer within 300 ms \(after 2 attempts\)/);
    } finally {
      cluster().faults.clear();
    }
  });

  test("401: the connector's credentials are invalidated once and the request retried with fresh ones", async () => {
    let first = true;
    const stale = simConnector(sim, (name) => {
      if (!first) return sim.cluster(name).token();
      first = false;
      return "k8s-aws-v1.bm90LWEtdG9rZW4";
    });
    const report = await statusOf(releaseOf("faults", "faults", manifest), {}, undefined, stale);
    assert.deepEqual(report.missing, []);
    assert.equal(stale.invalidations, 1, "one refresh shared by every request that got a 401");
    assert.equal(stale.kubeConfigs, 2);
  });
});

describe("scale and secrets", () => {
  test("a 300-resource release is read within its deadline, never more than the concurrency in flight", async () => {
    let manifest = "";
    for (let i = 0; i < 300; i++) manifest += configMap(`cm-${String(i).padStart(3, "0")}`);
    cluster().apply(manifest.replace(/^# Source.*\n/gm, "").replace(/\n(metadata:\n)/g, "\n$1  namespace: big\n"));
    cluster().faults.set({ latencyMs: 5 });
    cluster().resetStats();
    try {
      const report = await statusOf(releaseOf("big", "big", manifest), {
        deadline: Date.now() + 60_000,
        concurrency: 16,
      });
      assert.equal(report.resources.length, 300);
      assert.deepEqual(report.missing, []);
      assert.equal(report.complete, true);
      assert.ok(report.counters.maxInFlight <= 16, `maxInFlight ${report.counters.maxInFlight}`);
      assert.ok(cluster().stats().maxInFlight <= 16);
      const text = renderStatusText(report);
      assert.equal(text.match(/^==> v1\/ConfigMap$/gm)?.length, 1, "one group, one header");
      assert.match(text, /==> v1\/ConfigMap\nNAME {5}DATA {3}AGE\ncm-000 {3}1 {6}\S+\n/);
    } finally {
      cluster().faults.clear();
    }
  });

  test("Secret values appear nowhere: text, JSON, YAML, the manifest, the last-applied annotation", async () => {
    const password = "s3cr3t-password-value";
    const encoded = Buffer.from(password).toString("base64");
    const secret = `---\n# Source: c/templates/secret.yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\ntype: Opaque\ndata:\n  password: ${encoded}\nstringData:\n  token: ${password}\n`;
    const lastApplied = JSON.stringify({ apiVersion: "v1", kind: "Secret", data: { password: encoded } });
    cluster().apply([
      {
        apiVersion: "v1",
        kind: "Secret",
        metadata: {
          name: "creds",
          namespace: "secrets",
          annotations: { "kubectl.kubernetes.io/last-applied-configuration": lastApplied },
        },
        type: "Opaque",
        data: { password: encoded },
      },
    ]);
    const hook = {
      name: "hook-secret",
      kind: "Secret",
      path: "c/templates/hook.yaml",
      manifest: secret.slice(secret.indexOf("apiVersion")),
      events: ["pre-install"],
    };
    const report = await statusOf(
      releaseOf("secrets", "secrets", secret, {
        info: { status: "deployed", description: "Dry run complete" },
        hooks: [hook],
      }),
    );
    assert.equal(report.resources.length, 1);
    assert.deepEqual(report.resources[0].object?.data, { password: "<redacted>" });
    const outputs = [
      renderStatusText(report),
      renderStatusJson(report),
      renderStatusYaml(report),
      JSON.stringify(report),
    ];
    for (const output of outputs) {
      assert.ok(!output.includes(password), "plain value leaked");
      assert.ok(!output.includes(encoded), "base64 value leaked");
    }
    assert.match(outputs[0], /==> v1\/Secret\nNAME {4}TYPE {5}DATA {3}AGE\ncreds {3}Opaque {3}1 {6}\S+\n/);
    assert.match(outputs[0], /MANIFEST:\n[\s\S]*password: <redacted>/, "dry-run dump shows the redacted manifest");
  });
});
