import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { observationFromReport } from "../../shared/audit/observation.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { silentLogger } from "../../shared/ports.ts";
import { renderStatusJson, renderStatusYaml } from "../../shared/render/status/json.ts";
import { renderStatusText } from "../../shared/render/status/text.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { importReleases } from "../../shared/usecases/import.ts";
import { releaseStatus } from "../../shared/usecases/status.ts";
import { call } from "../sim/helpers.ts";
import { simConnector } from "../status/sim-connector.ts";
import { helmPath, kubectlPath } from "../support/kube-tools.ts";
import { PASSWORD, toolRunner, writeChart } from "./chart.ts";

// Drift end to end: the real helm 4 installs (server-side apply), the real kubectl changes things behind its
// back, and the status names each drifted field, the change, who made it and when.
const T0 = Date.parse("2026-12-02T15:00:00Z");
const MIN = 60_000;
let clock = T0;
let sim: SimulatedEks;
let home: string;

before(async () => {
  sim = await startSimulatedEks({ clusters: [{ name: "drift" }], now: () => new Date(clock) });
  home = await mkdtemp(join(tmpdir(), "drift-e2e-"));
});
after(async () => {
  await sim?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

async function status(tool: (b: string, a: string[]) => Promise<string>, kubectl: string, drift = true) {
  const store = new MemoryReleaseStore();
  const secrets = JSON.parse(await tool(kubectl, ["get", "secrets", "-A", "-l", "owner=helm", "-o", "json"]));
  await importReleases({ store, clusters: "any" }, { cluster: "drift", document: secrets });
  const kube = createKubeReader({ connector: simConnector(sim), clock: { now: () => new Date(clock) } });
  return releaseStatus(
    { store, kube, logger: silentLogger },
    { cluster: "drift", namespace: "shop", name: "shop", drift },
  ).finally(() => kube.close());
}

test("install, then kubectl scale / set image / patch ConfigMap and Secret and an HPA write show in ==> DRIFT", async (t) => {
  const [helm, kubectl] = [await helmPath(), await kubectlPath()];
  if (!helm || !kubectl) return t.skip("no helm/kubectl");
  const cluster = sim.cluster("drift");
  const kubeconfig = join(home, "kubeconfig");
  await writeFile(kubeconfig, cluster.kubeconfig(), { mode: 0o600 });
  const tool = toolRunner(home, kubeconfig);
  await tool(helm, ["install", "shop", await writeChart(home), "-n", "shop", "--create-namespace"]);

  const web = JSON.parse(await tool(kubectl, ["-n", "shop", "get", "deployment", "shop-web", "-o", "json"]));
  assert.deepEqual(web.spec.template.spec.containers[0].resources.requests, { cpu: "250m", memory: "256Mi" });
  clock = T0 + 5 * MIN;
  const clean = await status(tool, kubectl);
  assert.equal(clean.drift?.checked, 6);
  assert.deepEqual(
    clean.drift?.fields,
    [],
    "right after install nothing drifted (0.25 is stored as 250m, defaults are not drift)",
  );
  const cleanText = renderStatusText(clean);
  assert.doesNotMatch(cleanText, /DRIFT/, "no DRIFT line and no section without drift");

  clock = T0 + 10 * MIN;
  await tool(kubectl, ["-n", "shop", "scale", "deployment", "shop-web", "--replicas=5"]);
  clock = T0 + 20 * MIN;
  await tool(kubectl, ["-n", "shop", "set", "image", "deployment/shop-web", "app=nginx:1.27"]);
  clock = T0 + 30 * MIN;
  await tool(kubectl, ["-n", "shop", "patch", "configmap", "shop-settings", "-p", '{"data":{"LOG_LEVEL":"debug"}}']);
  clock = T0 + 35 * MIN;
  const changed = Buffer.from("an-other-password").toString("base64");
  await tool(kubectl, [
    "-n",
    "shop",
    "patch",
    "secret",
    "shop-credentials",
    "-p",
    `{"data":{"password":"${changed}"}}`,
  ]);
  // What the HPA controller sends: PUT /scale with kube-controller-manager's User-Agent and no fieldManager.
  clock = T0 + 40 * MIN;
  const scalePath = "/apis/apps/v1/namespaces/shop/deployments/shop-worker/scale";
  const scale = (await call(cluster, scalePath)).json;
  scale.spec.replicas = 4;
  const hpaWrite = await call(cluster, scalePath, {
    method: "PUT",
    body: scale,
    headers: {
      "user-agent": "kube-controller-manager/v1.35.0 (linux/amd64) kubernetes/abcdef0/horizontal-pod-autoscaler",
    },
  });
  assert.equal(hpaWrite.status, 200, hpaWrite.text);

  clock = T0 + 60 * MIN;
  const report = await status(tool, kubectl);
  const text = renderStatusText(report);
  const section = text.slice(text.indexOf("==> DRIFT\n"), text.indexOf("\n\n", text.indexOf("==> DRIFT\n")));
  assert.equal(
    section,
    `==> DRIFT
KIND            NAME            FIELD                                           RELEASE -> LIVE            CHANGED BY                        WHEN                             NOTE
v1/ConfigMap    shop-settings   data.LOG_LEVEL                                  info -> debug              kubectl-patch                     2026-12-02T15:30:00Z (30m ago)   next upgrade conflicts
v1/Deployment   shop-web        spec.replicas                                   2 -> 5                     kubectl (scale)                   <unknown>                        next upgrade conflicts
v1/Deployment   shop-web        spec.template.spec.containers[name=app].image   nginx:1.25 -> nginx:1.27   kubectl-set                       2026-12-02T15:20:00Z (40m ago)   next upgrade conflicts
v1/Deployment   shop-worker     spec.replicas                                   1 -> 4                     kube-controller-manager (scale)   <unknown>                        benign (HPA); next upgrade conflicts`,
  );
  assert.match(text, /^DRIFT: 4 fields changed outside Helm \(4 make the next upgrade conflict, 1 benign\)$/m);
  // A Secret's value is never compared (issue #38): its patched password is no row, for anyone.
  assert.doesNotMatch(text, /shop-credentials .*data\.password/);
  assert.match(
    text,
    /^v1\/Deployment +shop-web +InProgress +0\/5 replicas created; drift: 2 fields changed outside Helm by kubectl, kubectl-set; the next upgrade conflicts/m,
    "the HEALTH section has a drift line for shop-web",
  );
  assert.match(text, /^v1\/ConfigMap +shop-settings +Current +drift: 1 field changed outside Helm by kubectl-patch/m);
  assert.doesNotMatch(text, /shop-worker .*drift/, "an HPA's replicas are benign: no drift in its health line");
  for (const rendered of [text, renderStatusJson(report), renderStatusYaml(report)]) {
    assert.ok(!rendered.includes(PASSWORD) && !rendered.includes("an-other-password"), "no Secret value anywhere");
    assert.ok(!rendered.includes(changed) && !rendered.includes(Buffer.from(PASSWORD).toString("base64")));
  }
  const json = JSON.parse(renderStatusJson(report));
  assert.equal(json.drift.fields.length, 4);
  assert.deepEqual(json.drift.fields[2], {
    apiVersion: "apps/v1",
    kind: "Deployment",
    name: "shop-web",
    namespace: "shop",
    field: "spec.template.spec.containers[name=app].image",
    release: "nginx:1.25",
    live: "nginx:1.27",
    secret: false,
    helmOwns: false,
    conflicts: true,
    changedBy: "kubectl-set",
    operation: "Update",
    changedAt: "2026-12-02T15:20:00Z",
  });

  // Snapshots carry it: the audit's observation keeps the fields (no Secret value) and the text with its section.
  const observation = observationFromReport(report, "20261202T160000Z", report.observedAt);
  assert.deepEqual(
    observation.drift?.map((d) => [d.name, d.field, d.live, d.changedBy]),
    [
      ["shop-settings", "data.LOG_LEVEL", "debug", "kubectl-patch"],
      ["shop-web", "spec.replicas", "5", "kubectl"],
      ["shop-web", "spec.template.spec.containers[name=app].image", "nginx:1.27", "kubectl-set"],
      ["shop-worker", "spec.replicas", "4", "kube-controller-manager"],
    ],
  );
  assert.match(observation.text, /==> DRIFT\n/);
  assert.ok(!JSON.stringify(observation).includes(PASSWORD) && !JSON.stringify(observation).includes(changed));

  const skipped = await status(tool, kubectl, false);
  assert.equal(skipped.drift, undefined);
  assert.doesNotMatch(renderStatusText(skipped), /DRIFT/);
});
