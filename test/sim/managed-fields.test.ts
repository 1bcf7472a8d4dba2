import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { toolRunner, writeChart } from "../drift/chart.ts";
import { helmPath, kubectlPath } from "../support/kube-tools.ts";
import { call } from "./helpers.ts";

// managedFields as kube-apiserver records them, produced by the real helm 4 (SSA) and kubectl 1.35.
const T0 = Date.parse("2026-12-02T15:00:00Z");
let clock = T0;
let sim: SimulatedEks;
let home: string;

before(async () => {
  sim = await startSimulatedEks({ clusters: [{ name: "mf" }], now: () => new Date(clock) });
  home = await mkdtemp(join(tmpdir(), "sim-mf-"));
});
after(async () => {
  await sim?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

// biome-ignore lint/suspicious/noExplicitAny: managedFields are inspected field by field
const entries = (object: any) =>
  // biome-ignore lint/suspicious/noExplicitAny: see above
  (object.metadata.managedFields ?? []).map((e: any) => ({
    manager: e.manager,
    operation: e.operation,
    subresource: e.subresource,
    time: e.time,
  }));

test("helm install, kubectl scale / set image / patch and an HPA write record managedFields like kube-apiserver", async (t) => {
  const [helm, kubectl] = [await helmPath(), await kubectlPath()];
  if (!helm || !kubectl) return t.skip("no helm/kubectl");
  const cluster = sim.cluster("mf");
  const kubeconfig = join(home, "kubeconfig");
  await writeFile(kubeconfig, cluster.kubeconfig(), { mode: 0o600 });
  const tool = toolRunner(home, kubeconfig);
  const chart = await writeChart(home);
  await tool(helm, ["install", "shop", chart, "-n", "shop", "--create-namespace"]);
  const get = async (kind: string, name: string) =>
    JSON.parse(await tool(kubectl, ["-n", "shop", "get", kind, name, "-o", "json", "--show-managed-fields"]));

  let web = await get("deployment", "shop-web");
  assert.deepEqual(entries(web), [
    { manager: "helm", operation: "Apply", subresource: undefined, time: "2026-12-02T15:00:00Z" },
  ]);
  const helmFields = web.metadata.managedFields[0].fieldsV1;
  assert.deepEqual(Object.keys(helmFields["f:spec"]), ["f:replicas", "f:selector", "f:template"]);
  const app = helmFields["f:spec"]["f:template"]["f:spec"]["f:containers"]['k:{"name":"app"}'];
  assert.deepEqual(Object.keys(app), [".", "f:env", "f:image", "f:name", "f:ports", "f:resources"]);
  assert.ok(app["f:ports"]['k:{"containerPort":8080,"protocol":"TCP"}'], "key defaults (protocol TCP) filled in");
  assert.equal(app["f:imagePullPolicy"], undefined, "an applier does not own server defaults");
  assert.deepEqual(
    helmFields["f:metadata"]["f:labels"],
    { "f:app": {}, "f:app.kubernetes.io/managed-by": {} },
    "an applied map is not a member itself",
  );

  clock = T0 + 10 * 60_000;
  await tool(kubectl, ["-n", "shop", "scale", "deployment", "shop-web", "--replicas=5"]);
  clock = T0 + 20 * 60_000;
  await tool(kubectl, ["-n", "shop", "set", "image", "deployment/shop-web", "app=nginx:1.27"]);
  web = await get("deployment", "shop-web");
  assert.equal(web.spec.replicas, 5);
  const containers = web.spec.template.spec.containers;
  assert.deepEqual(
    containers.map((c: { name: string; image: string }) => [c.name, c.image]),
    [
      ["app", "nginx:1.27"],
      ["sidecar", "busybox:1.36"],
    ],
    "a strategic merge patch merges containers by name",
  );
  assert.equal(containers[0].env[0].value, "prod");
  assert.deepEqual(entries(web), [
    { manager: "helm", operation: "Apply", subresource: undefined, time: "2026-12-02T15:00:00Z" },
    // The scale handler copies the parent's time for a scale owner: a first scale has none (scalehandler.go).
    { manager: "kubectl", operation: "Update", subresource: "scale", time: undefined },
    { manager: "kubectl-set", operation: "Update", subresource: undefined, time: "2026-12-02T15:20:00Z" },
  ]);
  const [helmEntry, scaleEntry, setEntry] = web.metadata.managedFields;
  assert.equal(helmEntry.fieldsV1["f:spec"]["f:replicas"], undefined, "kubectl scale took spec.replicas");
  assert.deepEqual(scaleEntry.fieldsV1, { "f:spec": { "f:replicas": {} } });
  assert.deepEqual(setEntry.fieldsV1, {
    "f:spec": { "f:template": { "f:spec": { "f:containers": { 'k:{"name":"app"}': { "f:image": {} } } } } },
  });

  clock = T0 + 30 * 60_000;
  await tool(kubectl, ["-n", "shop", "patch", "configmap", "shop-settings", "-p", '{"data":{"LOG_LEVEL":"debug"}}']);
  const settings = await get("configmap", "shop-settings");
  assert.deepEqual(settings.data, { LOG_LEVEL: "debug", FEATURE_X: "on" });
  assert.deepEqual(entries(settings)[1], {
    manager: "kubectl-patch",
    operation: "Update",
    subresource: undefined,
    time: "2026-12-02T15:30:00Z",
  });
  assert.deepEqual(settings.metadata.managedFields[1].fieldsV1, { "f:data": { "f:LOG_LEVEL": {} } });

  // kubectl edit, with sed as the editor: a strategic merge patch under the kubectl-edit manager.
  clock = T0 + 35 * 60_000;
  await tool(kubectl, ["-n", "shop", "edit", "configmap", "shop-settings"], {
    KUBE_EDITOR: `sed -i -e 's/FEATURE_X:.*/FEATURE_X: "off"/'`,
  });
  const edited = await get("configmap", "shop-settings");
  assert.equal(edited.data.FEATURE_X, "off");
  assert.deepEqual(entries(edited)[2], {
    manager: "kubectl-edit",
    operation: "Update",
    subresource: undefined,
    time: "2026-12-02T15:35:00Z",
  });
  assert.deepEqual(edited.metadata.managedFields[2].fieldsV1, { "f:data": { "f:FEATURE_X": {} } });
  assert.equal(edited.metadata.managedFields[0].manager, "helm");
  assert.equal(edited.metadata.managedFields[0].fieldsV1["f:data"], undefined, "helm owns neither data key now");

  // What the HPA controller sends: PUT /scale, no fieldManager, client-go's User-Agent of kube-controller-manager.
  clock = T0 + 40 * 60_000;
  const path = "/apis/apps/v1/namespaces/shop/deployments/shop-worker/scale";
  const scale = (await call(cluster, path)).json;
  assert.equal(scale.kind, "Scale");
  scale.spec.replicas = 4;
  const put = await call(cluster, path, {
    method: "PUT",
    body: scale,
    headers: {
      "user-agent": "kube-controller-manager/v1.35.0 (linux/amd64) kubernetes/abcdef0/horizontal-pod-autoscaler",
    },
  });
  assert.equal(put.status, 200, put.text);
  const worker = await get("deployment", "shop-worker");
  assert.equal(worker.spec.replicas, 4);
  assert.deepEqual(entries(worker)[1], {
    manager: "kube-controller-manager",
    operation: "Update",
    subresource: "scale",
    time: undefined,
  });

  // The next helm upgrade (SSA, no --force-conflicts) conflicts on the fields others took, as a real server says.
  await assert.rejects(
    tool(helm, ["upgrade", "shop", chart, "-n", "shop"]),
    (error: Error) =>
      /conflict with "kubectl" with subresource "scale" using apps\/v1: \.spec\.replicas/.test(error.message) ||
      /Apply failed with \d+ conflicts?/.test(error.message),
  );
  clock = T0 + 50 * 60_000;
  await tool(helm, ["upgrade", "shop", chart, "-n", "shop", "--force-conflicts"]);
  web = await get("deployment", "shop-web");
  assert.equal(web.spec.replicas, 2);
  assert.equal(web.spec.template.spec.containers[0].image, "nginx:1.25");
  assert.deepEqual(
    entries(web).map((e: { manager: string }) => e.manager),
    ["helm"],
    "forcing moved the fields back to helm",
  );
});

test("apply without fieldManager, force on a merge patch and a conflicting apply get kube-apiserver's answers", async () => {
  const cluster = sim.cluster("mf");
  const base = "/api/v1/namespaces/default/configmaps";
  const applyBody = (value: string) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "conflicts" },
    data: { key: value },
  });
  const apply = (query: string, value: string) => rawApply(cluster, `${base}/conflicts?${query}`, applyBody(value));
  const noManager = await apply("", "a");
  assert.equal(noManager.status, 422);
  assert.match(noManager.json.message, /fieldManager: Required value: is required for apply patch/);
  assert.equal((await apply("fieldManager=first", "a")).status, 201);
  const conflict = await apply("fieldManager=second", "b");
  assert.equal(conflict.status, 409);
  assert.equal(conflict.json.reason, "Conflict");
  assert.equal(conflict.json.message, 'Apply failed with 1 conflict: conflict with "first": .data.key');
  assert.deepEqual(conflict.json.details.causes, [
    { type: "FieldManagerConflict", message: 'conflict with "first"', field: ".data.key" },
  ]);
  assert.equal((await apply("fieldManager=second", "a")).status, 200, "the same value is shared, no conflict");
  assert.equal((await apply("fieldManager=second&force=true", "b")).status, 200);
  const forced = (await call(cluster, `${base}/conflicts`)).json;
  assert.deepEqual(
    forced.metadata.managedFields.map((entry: { manager: string }) => entry.manager),
    ["second"],
  );
});

function rawApply(cluster: ReturnType<SimulatedEks["cluster"]>, path: string, body: unknown) {
  return call(cluster, path, {
    method: "PATCH",
    body,
    headers: { "content-type": "application/apply-patch+yaml" },
  });
}
