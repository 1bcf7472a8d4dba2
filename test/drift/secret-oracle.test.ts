import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import type { Logger } from "../../shared/ports.ts";
import { renderStatusJson, renderStatusYaml } from "../../shared/render/status/json.ts";
import { renderStatusText } from "../../shared/render/status/text.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { importReleases } from "../../shared/usecases/import.ts";
import { releaseStatus } from "../../shared/usecases/status.ts";
import { simConnector } from "../status/sim-connector.ts";
import { helmPath, kubectlPath } from "../support/kube-tools.ts";
import { PASSWORD, toolRunner, writeChart } from "./chart.ts";

// Issue #38 item 3: drift once compared Secret values, so whoever could store a manifest naming a Secret learned
// whether a guessed value was right (no row) or wrong (`changed`). Now a right and a wrong guess give the same
// bytes in every format and the same log lines, through the real status path against what the real helm installed.
const NOW = Date.parse("2026-12-02T15:00:00Z");
let sim: SimulatedEks;
let home: string;

before(async () => {
  sim = await startSimulatedEks({ clusters: [{ name: "oracle" }], now: () => new Date(NOW) });
  home = await mkdtemp(join(tmpdir(), "secret-oracle-"));
});
after(async () => {
  await sim?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

function recordingLogger(lines: unknown[]): Logger {
  const record = (level: string) => (message: string, attributes?: Record<string, unknown>) =>
    lines.push({ level, message, attributes });
  return { debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error") };
}

test("a right and a wrong guess of a Secret's value give byte-identical answers (text, json, yaml, logs)", async (t) => {
  const [helm, kubectl] = [await helmPath(), await kubectlPath()];
  if (!helm || !kubectl) return t.skip("no helm/kubectl");
  const kubeconfig = join(home, "kubeconfig");
  await writeFile(kubeconfig, sim.cluster("oracle").kubeconfig(), { mode: 0o600 });
  const tool = toolRunner(home, kubeconfig);
  await tool(helm, ["install", "vault", await writeChart(home), "-n", "vault", "--create-namespace"]);
  const storage = JSON.parse(await tool(kubectl, ["get", "secrets", "-A", "-l", "owner=helm", "-o", "json"]));
  const installed = new MemoryReleaseStore();
  await importReleases({ store: installed, clusters: "any" }, { cluster: "oracle", document: storage });
  const release = await installed.getLatest({ cluster: "oracle", namespace: "vault", name: "vault" });
  const stored = Buffer.from(PASSWORD).toString("base64");
  assert.ok(release.manifest?.includes(`password: ${stored}`), "the chart's Secret is in the manifest");

  const answerFor = async (guess: string) => {
    // The release as a tenant would store it: the same manifest, the Secret's value replaced by a guess.
    const store = new MemoryReleaseStore();
    const manifest = release.manifest!.replace(stored, Buffer.from(guess).toString("base64"));
    await store.putRevision("oracle", { ...release, manifest });
    const logs: unknown[] = [];
    const kube = createKubeReader({ connector: simConnector(sim), clock: { now: () => new Date(NOW) } });
    try {
      const report = await releaseStatus(
        { store, kube, logger: recordingLogger(logs) },
        { cluster: "oracle", namespace: "vault", name: "vault" },
      );
      return { text: renderStatusText(report), json: renderStatusJson(report), yaml: renderStatusYaml(report), logs };
    } finally {
      await kube.close();
    }
  };
  const right = await answerFor(PASSWORD);
  const wrong = await answerFor("a-wrong-guess");
  assert.equal(wrong.text, right.text);
  assert.equal(wrong.json, right.json);
  assert.equal(wrong.yaml, right.yaml);
  assert.deepEqual(wrong.logs, right.logs);
  assert.doesNotMatch(right.text, /vault-credentials +data\.password/, "no row about the value");
  assert.deepEqual(JSON.parse(right.json).drift.fields, [], "nothing drifted: the keys are all there");
});

test("a Secret key the manifest sets that is gone live is the one row drift gives a Secret", async (t) => {
  const [helm, kubectl] = [await helmPath(), await kubectlPath()];
  if (!helm || !kubectl) return t.skip("no helm/kubectl");
  const kubeconfig = join(home, "kubeconfig");
  await writeFile(kubeconfig, sim.cluster("oracle").kubeconfig(), { mode: 0o600 });
  const tool = toolRunner(home, kubeconfig);
  await tool(helm, ["install", "keys", await writeChart(home), "-n", "keys", "--create-namespace"]);
  await tool(kubectl, [
    "-n",
    "keys",
    "patch",
    "secret",
    "keys-credentials",
    "--type=json",
    "-p",
    '[{"op":"remove","path":"/data/user"}]',
  ]);
  const storage = JSON.parse(await tool(kubectl, ["get", "secrets", "-n", "keys", "-l", "owner=helm", "-o", "json"]));
  const store = new MemoryReleaseStore();
  await importReleases({ store, clusters: "any" }, { cluster: "oracle", document: storage });
  const kube = createKubeReader({ connector: simConnector(sim), clock: { now: () => new Date(NOW) } });
  const report = await releaseStatus(
    { store, kube, logger: recordingLogger([]) },
    { cluster: "oracle", namespace: "keys", name: "keys" },
  ).finally(() => kube.close());
  assert.deepEqual(
    report.drift?.fields.map((f) => [f.name, f.field, f.release, f.live, f.secret]),
    [["keys-credentials", "data.user", undefined, "<absent>", true]],
  );
});
