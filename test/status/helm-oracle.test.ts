import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { helmBinary, helmRunner } from "../../local/helm-oracle.ts";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { silentLogger } from "../../shared/ports.ts";
import { encodeHelmSecret } from "../../shared/release/helm-codec.ts";
import type { Release } from "../../shared/release/model.ts";
import { renderStatusText } from "../../shared/render/status/text.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { releaseStatus } from "../../shared/usecases/status.ts";
import { capture, demoRelease } from "./captures.ts";
import { simConnector } from "./sim-connector.ts";

/**
 * The real helm v4 binary and this engine, on the same simulated cluster state
 * and the same stored release: the same text once helm's random group order is
 * put into ours (each group here holds one object, so helm's per-object
 * alignment is the same as our per-group one).
 */

const helm = await helmBinary();
const NOW = new Date("2026-12-02T15:41:00Z");
let sim: SimulatedEks;

before(async () => {
  if (!helm) return;
  sim = await startSimulatedEks({ clusters: [{ name: "oracle" }], now: () => NOW });
});

after(async () => {
  await sim?.stop();
});

/** Splits RESOURCES into `==>` blocks and reorders them as `order` lists them. */
function reorderGroups(text: string, order: string[]): string {
  const start = text.indexOf("RESOURCES:\n") + "RESOURCES:\n".length;
  const end = text.indexOf("\n\nTEST SUITE");
  const blocks = text
    .slice(start, end + 1)
    .split(/(?=^==> )/m)
    .filter(Boolean);
  const byKey = new Map(blocks.map((block) => [block.slice(4, block.indexOf("\n")), block]));
  assert.deepEqual([...byKey.keys()].sort(), [...order].sort(), "same groups");
  return text.slice(0, start) + order.map((key) => byKey.get(key)).join("") + text.slice(end + 1);
}

test("helm status and this engine print the same groups and rows for the helm create demo", {
  skip: !helm && "no helm binary",
}, async () => {
  const cluster = sim.cluster("oracle");
  const release: Release = {
    ...demoRelease(),
    info: { ...demoRelease().info!, last_deployed: "2026-12-02T15:10:00Z" },
  };
  cluster.materialize(capture("helm-create-demo-manifest.yaml"), { createdAt: new Date("2026-12-02T15:10:00Z") });
  cluster.apply([encodeHelmSecret(release)]);
  const store = new MemoryReleaseStore();
  await store.putRevision("oracle", release);

  const kube = createKubeReader({ connector: simConnector(sim), clock: { now: () => NOW } });
  const report = await releaseStatus(
    { store, kube, logger: silentLogger },
    { cluster: "oracle", namespace: "default", name: "demo" },
  ).finally(() => kube.close());
  const ours = renderStatusText(report, { health: false });
  const runner = helmRunner(helm!, cluster.kubeconfig());
  try {
    const { stdout } = await runner.status("demo", "default");
    const order = ours
      .split("\n")
      .filter((line) => line.startsWith("==> "))
      .map((line) => line.slice(4));
    assert.deepEqual(order, ["v1/ServiceAccount", "v1/Service", "v1/Deployment", "v1/Pod(related)"]);
    assert.equal(ours, reorderGroups(stdout, order));
  } finally {
    runner.cleanup();
  }
});
