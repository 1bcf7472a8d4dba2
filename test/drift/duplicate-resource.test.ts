import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { silentLogger } from "../../shared/ports.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { importReleases } from "../../shared/usecases/import.ts";
import { releaseStatus } from "../../shared/usecases/status.ts";
import { simConnector } from "../status/sim-connector.ts";
import { helmPath, kubectlPath } from "../support/kube-tools.ts";
import { toolRunner } from "./chart.ts";

// Issue #39 item 16: a manifest holding one resource twice. helm 4 sends both documents: on install the first one
// stays (the second's create finds it there; helm's creates of one kind run in parallel, so which is a race), on an
// upgrade both are server-side applied in turn and the second wins. Comparing the other document with the live
// object reported Helm's own write as drift. The real helm installs and upgrades; the live object is the oracle.
let sim: SimulatedEks;
let home: string;

before(async () => {
  sim = await startSimulatedEks({ clusters: [{ name: "dup" }] });
  home = await mkdtemp(join(tmpdir(), "drift-dup-"));
});
after(async () => {
  await sim?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

const CHART: Record<string, string> = {
  "Chart.yaml": "apiVersion: v2\nname: twice\nversion: 0.1.0\n",
  "templates/first.yaml":
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  LOG_LEVEL: info\n  ONLY_FIRST: x\n",
  "templates/second.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  LOG_LEVEL: debug\n",
};

test("a resource the manifest holds twice is compared with the document helm left live: no drift", async (t) => {
  const [helm, kubectl] = [await helmPath(), await kubectlPath()];
  if (!helm || !kubectl) return t.skip("no helm/kubectl");
  const kubeconfig = join(home, "kubeconfig");
  await writeFile(kubeconfig, sim.cluster("dup").kubeconfig(), { mode: 0o600 });
  const tool = toolRunner(home, kubeconfig);
  const chart = join(home, "twice");
  for (const [name, text] of Object.entries(CHART)) {
    await mkdir(join(chart, name, ".."), { recursive: true });
    await writeFile(join(chart, name), text);
  }
  const liveData = async () =>
    JSON.parse(await tool(kubectl, ["-n", "dup", "get", "configmap", "settings", "-o", "json"])).data;
  const drift = async () => {
    const store = new MemoryReleaseStore();
    const storage = JSON.parse(await tool(kubectl, ["get", "secrets", "-n", "dup", "-l", "owner=helm", "-o", "json"]));
    await importReleases({ store, clusters: "any" }, { cluster: "dup", document: storage });
    const kube = createKubeReader({ connector: simConnector(sim) });
    const report = await releaseStatus(
      { store, kube, logger: silentLogger },
      { cluster: "dup", namespace: "dup", name: "twice" },
    ).finally(() => kube.close());
    assert.equal(report.drift?.checked, 1, "one live object compared");
    return report.drift?.fields.map((f) => `${f.name} ${f.field} ${f.release} -> ${f.live}`);
  };

  await tool(helm, ["install", "twice", chart, "-n", "dup", "--create-namespace"]);
  assert.ok(["info", "debug"].includes((await liveData()).LOG_LEVEL), "one of the two documents is live");
  assert.deepEqual(await drift(), [], "after install: Helm's own value is not drift");

  await tool(helm, ["upgrade", "twice", chart, "-n", "dup"]);
  assert.deepEqual(await liveData(), { LOG_LEVEL: "debug" }, "an upgrade applies both in turn: the second wins");
  assert.deepEqual(await drift(), [], "after upgrade: Helm's own value is not drift");

  // A change behind Helm's back is still drift, against the document that was live.
  await tool(kubectl, ["-n", "dup", "patch", "configmap", "settings", "-p", '{"data":{"LOG_LEVEL":"warn"}}']);
  assert.deepEqual(await drift(), ["settings data.LOG_LEVEL debug -> warn"]);
});
