import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { silentLogger } from "../../shared/ports.ts";
import { renderStatusJson } from "../../shared/render/status/json.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { releaseStatus } from "../../shared/usecases/status.ts";
import { simConnector } from "./sim-connector.ts";

/** Issue 14 item 2: a stored manifest with an alias bomb used to fail every status of its release with a 500. */

const CLUSTER = "unreadable";
let sim: SimulatedEks;

before(async () => {
  sim = await startSimulatedEks({ clusters: [{ name: CLUSTER }], seed: 3 });
});

after(async () => {
  await sim.stop();
});

const configMap = (name: string) =>
  `---\n# Source: c/templates/${name}.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: bombs\ndata:\n  a: b\n`;

const BOMB = [
  "---",
  "# Source: c/templates/bomb.yaml",
  "apiVersion: v1",
  "kind: ConfigMap",
  "metadata: {name: lol, namespace: bombs}",
  "data:",
  "  a: &a [x, x, x, x, x, x, x, x, x]",
  "  b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]",
  "  c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]",
  "  d: [*c, *c, *c, *c, *c, *c, *c, *c, *c]",
  "",
].join("\n");

test("a stored alias-bomb document is one error entry; the release's other resources are still read", async () => {
  sim.cluster(CLUSTER).apply(configMap("before") + configMap("after"));
  // Stored directly (as an older import, or another writer, could have): import now refuses it.
  const store = new MemoryReleaseStore();
  await store.putRevision(CLUSTER, {
    name: "bombed",
    namespace: "bombs",
    version: 1,
    info: { status: "deployed", last_deployed: "2026-12-02T14:40:15Z" },
    chart: { metadata: { name: "c", version: "0.1.0" } },
    manifest: configMap("before") + BOMB + configMap("after"),
  });
  // A fresh reader per status: no discovery or pool carried over between access settings.
  const kube = createKubeReader({ connector: simConnector(sim) });
  const report = await releaseStatus(
    { store, kube, logger: silentLogger },
    { cluster: CLUSTER, namespace: "bombs", name: "bombed" },
  ).finally(() => kube.close());
  const json = JSON.parse(renderStatusJson(report));
  const text = JSON.stringify(json);
  assert.match(text, /more than 100 alias expansions/);
  assert.doesNotMatch(text, /overLimit/);
  const missing = report.missing.filter((m) => m.reason === "error");
  assert.deepEqual(
    missing.map((m) => [m.kind, m.name, m.source]),
    [["ConfigMap", "lol", "c/templates/bomb.yaml"]],
  );
  assert.deepEqual(report.resources.map((r) => [r.kind, r.name, r.rows.length]).sort(), [
    ["ConfigMap", "after", 1],
    ["ConfigMap", "before", 1],
  ]);
});
