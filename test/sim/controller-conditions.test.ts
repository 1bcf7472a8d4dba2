/**
 * The conditions the simulated deployment and HPA controllers write (local/sim/controller-conditions.ts): a
 * never-ready Deployment past its progressDeadlineSeconds is Progressing=False ProgressDeadlineExceeded, one within it
 * still progressing; an HPA whose target has no ready pod cannot get its resource metric, one whose target is gone
 * cannot get its scale, one of a healthy target is active.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type SimCluster, type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";

const NOW = new Date("2026-12-04T12:00:00Z");
let sim: SimulatedEks;
let cluster: SimCluster;

// biome-ignore lint/suspicious/noExplicitAny: objects are inspected field by field
type Json = any;

const deployment = (name: string, exitCode?: string, deadline?: number) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name },
  spec: {
    replicas: 1,
    ...(deadline ? { progressDeadlineSeconds: deadline } : {}),
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: {
        containers: [
          {
            name: "app",
            image: "example/app:1.0",
            ...(exitCode ? { env: [{ name: "SIM_EXIT_CODE", value: exitCode }] } : {}),
          },
        ],
      },
    },
  },
});
const hpa = (name: string, target: string) => ({
  apiVersion: "autoscaling/v2",
  kind: "HorizontalPodAutoscaler",
  metadata: { name },
  spec: {
    scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: target },
    minReplicas: 1,
    maxReplicas: 3,
    metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } }],
  },
});

before(async () => {
  sim = await startSimulatedEks({ clusters: [{ name: "conditions" }], now: () => NOW });
  cluster = sim.cluster("conditions");
  const manifest = (objects: object[]) => objects.map((o) => JSON.stringify(o)).join("\n---\n");
  // Created 30 minutes ago: past the default 600 s deadline, within a 3600 s one.
  cluster.materialize(
    manifest([
      hpa("crash", "crash"),
      deployment("crash", "1"),
      deployment("patient", "1", 3600),
      deployment("web"),
      hpa("web", "web"),
      hpa("orphan", "gone"),
    ]),
    { namespace: "shop", createdAt: new Date(NOW.getTime() - 30 * 60_000) },
  );
  // Created 5 minutes ago: still within the default deadline.
  cluster.materialize(manifest([deployment("young", "1")]), {
    namespace: "shop",
    createdAt: new Date(NOW.getTime() - 5 * 60_000),
  });
});
after(async () => {
  await sim?.stop();
});

const get = (kind: string, name: string): Json => {
  const apiVersion = kind === "Deployment" ? "apps/v1" : "autoscaling/v2";
  return cluster.list(apiVersion, kind, "shop").find((o) => o.metadata?.name === name);
};
const condition = (object: Json, type: string) => object.status.conditions.find((c: Json) => c.type === type);

test("a never-ready Deployment past its progress deadline: Progressing=False ProgressDeadlineExceeded", () => {
  const progressing = condition(get("Deployment", "crash"), "Progressing");
  assert.equal(progressing.status, "False");
  assert.equal(progressing.reason, "ProgressDeadlineExceeded");
  assert.match(progressing.message, /^ReplicaSet "crash-\w+" has timed out progressing\.$/);
  assert.equal(progressing.lastTransitionTime, "2026-12-04T11:40:00Z");
  for (const name of ["patient", "young"]) {
    const within = condition(get("Deployment", name), "Progressing");
    assert.deepEqual([within.status, within.reason], ["True", "ReplicaSetUpdated"], name);
  }
  assert.equal(condition(get("Deployment", "web"), "Progressing").reason, "NewReplicaSetAvailable");
});

test("HPAs: no metric from a target without ready pods, no scale of a missing target, active otherwise", () => {
  const crash = get("HorizontalPodAutoscaler", "crash");
  assert.equal(condition(crash, "AbleToScale").status, "True");
  const active = condition(crash, "ScalingActive");
  assert.deepEqual([active.status, active.reason], ["False", "FailedGetResourceMetric"]);
  assert.match(active.message, /failed to get cpu utilization/);
  const orphan = condition(get("HorizontalPodAutoscaler", "orphan"), "AbleToScale");
  assert.deepEqual([orphan.status, orphan.reason], ["False", "FailedGetScale"]);
  assert.match(orphan.message, /deployments\.apps "gone" not found/);
  const web = get("HorizontalPodAutoscaler", "web");
  assert.deepEqual(
    web.status.conditions.map((c: Json) => `${c.type}=${c.status}`),
    ["AbleToScale=True", "ScalingActive=True", "ScalingLimited=False"],
  );
});
