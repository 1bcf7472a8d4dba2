/**
 * Why, against the simulated EKS (the demo's shop/api: a crash-looping pod, kubelet's BackOff events): the events
 * are read in the status's one wave (one LIST more, no round trip after it), matched to the release's objects by
 * uid, and cited by the cause chain; a namespace whose events cannot be listed still gets its status.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { DEMO_CLUSTERS } from "../../local/demo/releases.ts";
import { seedDemo } from "../../local/demo/seed.ts";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { observationFromReport } from "../../shared/audit/observation.ts";
import { recordObservation } from "../../shared/audit/record.ts";
import { createKubeReader, type KubeReader } from "../../shared/kube/reader.ts";
import { silentLogger } from "../../shared/ports.ts";
import { renderStatusJson } from "../../shared/render/status/json.ts";
import { renderStatusText } from "../../shared/render/status/text.ts";
import { MemorySnapshotStore } from "../../shared/snapshots/memory-snapshot-store.ts";
import { runIdFor } from "../../shared/snapshots/model.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { releaseStatus } from "../../shared/usecases/status.ts";
import { simConnector } from "./sim-connector.ts";

let sim: SimulatedEks;
let kube: KubeReader;
const store = new MemoryReleaseStore();
const api = { cluster: "demo-eu", namespace: "shop", name: "api" };

before(async () => {
  sim = await startSimulatedEks({ clusters: DEMO_CLUSTERS.map((c) => ({ name: c.name, region: c.region })), seed: 3 });
  await seedDemo(store, sim);
  kube = createKubeReader({ connector: simConnector(sim), clock: { now: () => new Date() } });
});
after(async () => {
  await kube.close();
  await sim.stop();
});

const status = (request = {}) => releaseStatus({ store, kube, logger: silentLogger }, { ...api, ...request });

test("the crash loop's cause names the container's exit code and kubelet's BackOff event, in one wave", async () => {
  const cluster = sim.cluster("demo-eu");
  cluster.resetStats();
  const report = await status();
  const eventLists = Object.entries(cluster.stats().byPath).filter(([path]) => path.includes("/events"));
  assert.deepEqual(
    eventLists.map(([path, count]) => [path.split("?")[0], count]),
    [["/api/v1/namespaces/shop/events", 1]],
    "one LIST of the release namespace's events, nothing more",
  );
  const text = renderStatusText(report);
  assert.match(
    text,
    /==> WHY\nKIND +NAME +WHY\nv1\/Deployment +api +Progressing=False ProgressDeadlineExceeded "ReplicaSet "api-\S+" has timed out progressing\." → pod api-\S+ → container api CrashLoopBackOff, last terminated Error, exit code 1, \S+ ago, 5 restarts → event BackOff ×\d+ "Back-off restarting failed container api in pod api-/,
  );
  // The verdict cites the chain's root: the crash, not the rollout's deadline the HEALTH group names.
  assert.match(
    text,
    /\nHEALTH: Failed \(kstatus: 2 of 3 resources not Current: 1 Failed, 1 NotFound\) because Deployment api: container api CrashLoopBackOff, exit code 1\nSTORED: /,
  );
  assert.match(
    text,
    /\nv1\/Deployment +api +Failed +progress deadline exceeded: ReplicaSet "api-\S+" has timed out progressing\.\n/,
  );
  assert.match(
    text,
    /==> EVENTS\nLAST SEEN +TYPE +REASON +OBJECT +MESSAGE\n\S+ \(x\d+ over \S+\) +Warning +BackOff +Pod\/api-/,
  );
  const document = JSON.parse(renderStatusJson(report));
  assert.equal(document.events.items[0].reason, "BackOff");
  assert.equal(document.causes[0].event.reason, "BackOff");
  assert.ok(document.causes[0].event.count > 1);
  assert.equal(document.health.cause, "Deployment api: container api CrashLoopBackOff, exit code 1");
  assert.deepEqual(Object.keys(document.health), ["ruleset", "overall", "message", "cause", "resources"]);
  assert.equal(document.causes[0].conditions[0].reason, "ProgressDeadlineExceeded");
});

test("events the product may not list: the status answers and says so; the container's cause still shows", async () => {
  const cluster = sim.cluster("demo-eu");
  cluster.deny({ resource: "events", verb: "list", namespace: "shop" });
  try {
    const report = await status();
    const text = renderStatusText(report);
    assert.match(text, /==> EVENTS\nNOT READ\nlist events forbidden\n/);
    assert.match(
      text,
      /==> WHY\nKIND +NAME +WHY\nv1\/Deployment +api +Progressing=False .* → pod api-\S+ → container api CrashLoopBackOff, last terminated Error, exit code 1, \S+ ago, 5 restarts\n/,
    );
    assert.equal(report.health.overall, "Failed");
    assert.equal(report.health.cause, "Deployment api: container api CrashLoopBackOff, exit code 1");
  } finally {
    cluster.allowAll();
  }
});

test("the audit's snapshot keeps the cause and the events after the cluster dropped them (kube-apiserver's event TTL)", async () => {
  const report = await status();
  const observation = observationFromReport(report, runIdFor(new Date()), report.observedAt);
  const snapshots = new MemorySnapshotStore();
  const recorded = await recordObservation(snapshots, observation, 90);
  const cluster = sim.cluster("demo-eu");
  for (const event of cluster.list("v1", "Event", "shop")) cluster.remove("v1", "Event", event.metadata!.name!, "shop");
  assert.match(
    renderStatusText(await status()),
    /==> WHY\n.*\n.* 5 restarts\n\n\nTEST SUITE/,
    "the live status has no event now",
  );
  const kept = await snapshots.get(recorded.snapshot.id, new Date());
  assert.equal(kept.events?.[0].reason, "BackOff");
  assert.match(kept.causes?.[0].text ?? "", /→ event BackOff ×\d+/);
  // The condition's kind, type and reason are kept; its message only in the chain (the snapshot stays within 2x).
  assert.deepEqual(kept.causes?.[0].conditions, [
    { kind: "Deployment", name: "api", type: "Progressing", status: "False", reason: "ProgressDeadlineExceeded" },
  ]);
  assert.match(kept.causes?.[0].text ?? "", /Progressing=False ProgressDeadlineExceeded "ReplicaSet /);
  assert.match(
    kept.text ?? "",
    /\nHEALTH: Failed .* because Deployment api: container api CrashLoopBackOff, exit code 1\n/,
  );
  assert.match(kept.text ?? "", /==> EVENTS\nLAST SEEN +TYPE +REASON +OBJECT +MESSAGE\n.*BackOff/);
});
