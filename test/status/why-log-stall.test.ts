/**
 * A log endpoint that never answers (a wedged kubelet: the simulator's `log-stall` annotation): the status still
 * answers by its deadline, says that excerpt was not read in time, and loses nothing else — the other crashed
 * container's excerpt, the cause chains, the verdict's citation, the events and every resource are there.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { createKubeReader, type KubeReader } from "../../shared/kube/reader.ts";
import { silentLogger } from "../../shared/ports.ts";
import type { Release } from "../../shared/release/model.ts";
import { renderStatusText } from "../../shared/render/status/text.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { releaseStatus } from "../../shared/usecases/status.ts";
import { simConnector } from "./sim-connector.ts";

const CLUSTER = "stall";
/** The status's budget: the stalled read ends with it (the wave itself takes a fraction of it). */
const BUDGET_MS = 4_000;

function crashing(name: string, annotations: Record<string, string>): object {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: "shop" },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name }, annotations },
        spec: { containers: [{ name: "app", image: "example/app:1.0", env: [{ name: "SIM_EXIT_CODE", value: "1" }] }] },
      },
    },
  };
}

const MANIFEST = [
  crashing("stalled", { "sim.helm-status.dev/log-stall": "true" }),
  crashing("crash", { "sim.helm-status.dev/log": "panic: no database" }),
  { apiVersion: "v1", kind: "Service", metadata: { name: "web", namespace: "shop" }, spec: { ports: [{ port: 80 }] } },
]
  .map((o) => `---\n${JSON.stringify(o)}\n`)
  .join("");

let sim: SimulatedEks;
let kube: KubeReader;
const store = new MemoryReleaseStore();

before(async () => {
  sim = await startSimulatedEks({ clusters: [{ name: CLUSTER }] });
  sim.cluster(CLUSTER).materialize(MANIFEST, { namespace: "shop" });
  kube = createKubeReader({ connector: simConnector(sim) });
  const release: Release = {
    name: "app",
    namespace: "shop",
    version: 1,
    manifest: MANIFEST,
    info: { status: "deployed", last_deployed: "2026-12-04T10:00:00Z", description: "Install complete" },
    chart: { metadata: { name: "app", version: "0.1.0" } },
  };
  await store.putRevision(CLUSTER, release);
});
after(async () => {
  await kube?.close();
  await sim?.stop();
});

test("a stalled log read ends at the status's deadline: that excerpt says why it is missing, nothing else is lost", async () => {
  const cluster = sim.cluster(CLUSTER);
  cluster.resetStats();
  const report = await releaseStatus(
    { store, kube, logger: silentLogger },
    {
      cluster: CLUSTER,
      namespace: "shop",
      name: "app",
      drift: false,
      freshness: false,
      logExcerpts: true,
      deadline: kube.clock.now().getTime() + BUDGET_MS,
    },
  );
  const asked = Object.keys(cluster.stats().byPath).filter((path) => path.endsWith("/log"));
  assert.ok(
    asked.some((path) => path.includes("/pods/stalled-")),
    "the stalled pod's log was asked for",
  );

  const stalled = report.causes?.find((c) => c.name === "stalled");
  assert.deepEqual(stalled?.log, { container: "app", unread: "not read in time" });
  const crash = report.causes?.find((c) => c.name === "crash");
  assert.ok(crash?.log && "lines" in crash.log && crash.log.lines.includes("panic: no database"), "the other excerpt");

  // Everything the wave read is there: every resource, the verdict and its citation, the chains, the events.
  assert.equal(report.complete, true);
  assert.deepEqual(report.missing, []);
  assert.deepEqual(report.resources.map((r) => r.name).sort(), ["crash", "stalled", "web"]);
  assert.equal(report.health.overall, "Failed");
  assert.match(report.health.cause ?? "", /^Deployment (stalled|crash): container app CrashLoopBackOff, exit code 1$/);
  assert.ok(report.events?.items.some((e) => e.reason === "BackOff" && e.object.name.startsWith("stalled-")));
  const text = renderStatusText(report);
  assert.match(text, /\nLOG +NOT SHOWN\nstalled\/app +not read in time\n/);
  assert.match(text, /\nLOG crash\/app \(previous instance, last \d+ lines\)\n/);
});
