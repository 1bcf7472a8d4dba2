import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { parse } from "yaml";
import { assessHealth, assessHealthWithPods, type HealthStatus } from "../../shared/health/index.ts";

const FIXTURES = new URL("./fixtures/", import.meta.url);
// Fixed clock, so the Pod scheduling window never depends on when the suite runs.
const NOW = new Date("2026-03-01T12:00:00Z");

function load(file: string): Record<string, unknown> {
  return parse(readFileSync(new URL(file, FIXTURES), "utf8"));
}

// One line per case: fixture (a live object as the API returns it), kstatus verdict, message pattern.
const CASES: [string, HealthStatus, RegExp][] = [
  ["deployment-current.yaml", "Current", /^3\/3 replicas ready$/],
  ["deployment-progressing.yaml", "InProgress", /^1\/3 replicas updated$/],
  ["deployment-not-ready.yaml", "InProgress", /^1\/3 replicas ready$/],
  ["deployment-deadline-exceeded.yaml", "Failed", /progress deadline exceeded: ReplicaSet "web-6f7d8c9b4"/],
  ["deployment-generation-not-observed.yaml", "InProgress", /generation 4 not yet observed \(controller saw 3\)/],
  ["deployment-old-replicas-terminating.yaml", "InProgress", /^1 old replicas pending termination$/],
  ["deployment-terminating.yaml", "Terminating", /deletion requested at 2026-03-01T10:00:00Z/],
  ["deployment-not-available.yaml", "InProgress", /^Deployment not Available$/],
  ["deployment-replicaset-not-available.yaml", "InProgress", /new ReplicaSet not yet available/],
  ["deployment-paused.yaml", "InProgress", /not yet available \(Deployment is paused\)/],
  ["replicaset-current.yaml", "Current", /^2\/2 replicas ready$/],
  ["replicaset-scaling.yaml", "InProgress", /^1\/2 replicas available$/],
  ["replicaset-replica-failure.yaml", "InProgress", /replica failure: FailedCreate: .*exceeded quota/],
  ["statefulset-current.yaml", "Current", /^3\/3 replicas ready$/],
  ["statefulset-not-ready.yaml", "InProgress", /^2\/3 replicas ready$/],
  ["statefulset-scaling-up.yaml", "InProgress", /^3\/5 replicas created$/],
  ["statefulset-revision-mismatch.yaml", "InProgress", /rolling update: revision db-6b8f7c9d44 -> db-7c9d8e0f55/],
  ["statefulset-partition-rollout.yaml", "InProgress", /partitioned rollout: 1\/2 replicas updated/],
  ["statefulset-partition-complete.yaml", "Current", /partitioned rollout complete/],
  ["statefulset-ondelete.yaml", "Current", /OnDelete/],
  ["daemonset-current.yaml", "Current", /^3\/3 pods ready$/],
  ["daemonset-updating.yaml", "InProgress", /^2\/3 pods updated$/],
  ["daemonset-not-ready.yaml", "InProgress", /^1\/3 pods ready$/],
  ["daemonset-not-observed.yaml", "InProgress", /not yet observed by its controller/],
  ["daemonset-no-desired-count.yaml", "InProgress", /no desired pod count/],
  ["pod-running-ready.yaml", "Current", /Running and Ready/],
  ["pod-crashloopbackoff.yaml", "Failed", /^container app in CrashLoopBackOff$/],
  ["pod-imagepullbackoff.yaml", "InProgress", /container app ImagePullBackOff/],
  ["pod-errimagepull.yaml", "InProgress", /container app ErrImagePull/],
  ["pod-running-not-ready.yaml", "InProgress", /^Running but not Ready$/],
  ["pod-pending.yaml", "InProgress", /Pending: container app ContainerCreating/],
  ["pod-unschedulable.yaml", "Failed", /unschedulable: Unschedulable: 0\/3 nodes are available/],
  ["pod-succeeded.yaml", "Current", /completed successfully/],
  ["pod-failed.yaml", "Current", /completed, but not successfully \(Evicted\)/],
  ["pod-phase-unknown.yaml", "Unknown", /unknown pod phase "Unknown"/],
  ["pod-no-phase.yaml", "InProgress", /phase not reported yet/],
  ["job-complete.yaml", "Current", /completed: 1\/1 succeeded/],
  ["job-failed.yaml", "Failed", /BackoffLimitExceeded: Job has reached the specified backoff limit/],
  ["job-running.yaml", "Current", /running: 1 active, 1\/3 succeeded, 0 failed/],
  ["job-not-started.yaml", "InProgress", /not started yet/],
  ["job-suspended.yaml", "Current", /suspended/],
  ["cronjob-scheduled.yaml", "Current", /schedule "0 2 \* \* \*", last run 2026-03-01T02:00:00Z/],
  ["cronjob-suspended.yaml", "Current", /^suspended$/],
  ["cronjob-last-run-failed.yaml", "Current", /last run 2026-03-02T02:00:00Z/],
  ["persistentvolumeclaim-bound.yaml", "Current", /^Bound$/],
  ["persistentvolumeclaim-pending.yaml", "InProgress", /not Bound \(phase Pending\)/],
  ["persistentvolumeclaim-lost.yaml", "InProgress", /not Bound \(phase Lost\)/],
  ["service-clusterip.yaml", "Current", /ClusterIP 10\.100\.12\.34/],
  ["service-externalname.yaml", "Current", /ExternalName/],
  ["service-loadbalancer-ready.yaml", "Current", /LoadBalancer a1b2c3d4e5f6-.*elb\.amazonaws\.com/],
  ["service-loadbalancer-pending.yaml", "Current", /external address not assigned yet/],
  ["service-loadbalancer-no-clusterip.yaml", "InProgress", /no cluster IP yet/],
  ["ingress-with-address.yaml", "Current", /address k8s-shop-web-/],
  ["ingress-no-address.yaml", "Current", /no address assigned yet/],
  ["ingress-terminating.yaml", "Terminating", /deletion requested/],
  ["horizontalpodautoscaler-current.yaml", "Current", /^3 replicas \(desired 3, range 2-10\)$/],
  ["horizontalpodautoscaler-metrics-failing.yaml", "Current", /ScalingActive=False: FailedGetResourceMetric/],
  ["horizontalpodautoscaler-generation-not-observed.yaml", "InProgress", /generation 2 not yet observed/],
  ["poddisruptionbudget-current.yaml", "Current", /^1 disruptions allowed$/],
  ["poddisruptionbudget-no-disruptions.yaml", "Current", /^0 disruptions allowed$/],
  ["poddisruptionbudget-generation-not-observed.yaml", "InProgress", /generation 2 not yet observed/],
  ["customresourcedefinition-established.yaml", "Current", /^established$/],
  ["customresourcedefinition-installing.yaml", "InProgress", /not yet Established/],
  ["customresourcedefinition-names-not-accepted.yaml", "Failed", /names not accepted: MultipleNameConflict/],
  ["certificate-ready.yaml", "Current", /Certificate is up to date/],
  ["certificate-not-ready.yaml", "InProgress", /not Ready: DoesNotExist: Issuing certificate/],
  ["kustomization-reconciling.yaml", "InProgress", /Progressing: Reconciliation in progress/],
  ["kustomization-stalled.yaml", "Failed", /BuildFailed: kustomize build failed/],
  ["widget-no-status.yaml", "Current", /no readiness rule for this kind/],
  ["deployment-lookalike-custom-group.yaml", "Current", /no readiness rule for this kind/],
  ["rollout-observedgeneration-string.yaml", "Unknown", /status\.observedGeneration is not an integer/],
  ["widget-malformed-conditions.yaml", "Unknown", /status\.conditions is not a list/],
  ["partialobjectmetadata-only.yaml", "Unknown", /includeObject=Object/],
  ["configmap-current.yaml", "Current", /always ready/],
  ["secret-current.yaml", "Current", /always ready/],
  ["secret-terminating.yaml", "Terminating", /deletion requested/],
  ["serviceaccount-current.yaml", "Current", /exists/],
  ["clusterrole-current.yaml", "Current", /exists/],
  ["rolebinding-current.yaml", "Current", /exists/],
  ["namespace-terminating.yaml", "Terminating", /deletion requested/],
];

for (const [file, status, message] of CASES) {
  test(`${file} -> ${status}`, () => {
    const verdict = assessHealth(load(file), { now: NOW });
    assert.equal(verdict.status, status, `message: ${verdict.message}`);
    assert.match(verdict.message, message);
  });
}

test("every fixture file has exactly one case", () => {
  const files = readdirSync(FIXTURES).filter((name) => name.endsWith(".yaml"));
  const listed = CASES.map(([file]) => file);
  assert.deepEqual([...listed].sort(), [...new Set(listed)].sort(), "a fixture is listed twice");
  assert.deepEqual([...files].sort(), [...listed].sort());
});

test("an unschedulable pod is InProgress within kstatus's 15 s window, Failed after it", () => {
  const pod = load("pod-unschedulable.yaml");
  const created = Date.parse("2026-03-01T09:00:00Z");
  assert.equal(assessHealth(pod, { now: new Date(created + 14_000) }).status, "InProgress");
  assert.equal(assessHealth(pod, { now: new Date(created + 16_000) }).status, "Failed");
});

test("the default clock is used when none is given", () => {
  assert.equal(assessHealth(load("pod-unschedulable.yaml")).status, "Failed");
});

test("messages never carry Secret values", () => {
  const verdict = assessHealth(load("secret-current.yaml"));
  assert.doesNotMatch(JSON.stringify(verdict), /c3VwZXIt|super-secret/);
});

test("inputs that are not Kubernetes objects are Unknown, never an exception", () => {
  const junk: unknown[] = [null, undefined, 42, "Pod", [], {}, { kind: "Pod" }, { apiVersion: "v1", kind: 7 }];
  for (const value of junk) {
    const verdict = assessHealth(value as Record<string, unknown>);
    assert.equal(verdict.status, "Unknown", JSON.stringify(value));
    assert.match(verdict.message, /not a Kubernetes object|no kind or apiVersion/);
  }
});

test("mangled fields never make assessHealth throw (bounded, seeded)", () => {
  const replacements: unknown[] = [null, "x", -1, 1.5, [], {}, true, [{ type: 1 }], [null]];
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  for (const [file] of CASES) {
    for (let round = 0; round < 20; round++) {
      const object = structuredClone(load(file));
      mangle(object, replacements, random);
      const verdict = assessHealth(object, { now: NOW });
      assert.equal(typeof verdict.message, "string");
    }
  }
});

/** Replaces one random leaf or subtree (never `kind`/`apiVersion`) with a wrongly typed value. */
function mangle(object: Record<string, unknown>, replacements: unknown[], random: () => number): void {
  let node: Record<string, unknown> = object;
  for (let depth = 0; depth < 6; depth++) {
    const keys = Object.keys(node).filter((key) => key !== "kind" && key !== "apiVersion");
    if (keys.length === 0) return;
    const key = keys[Math.floor(random() * keys.length)];
    const child = node[key];
    if (typeof child === "object" && child !== null && random() < 0.6) {
      node = child as Record<string, unknown>;
      continue;
    }
    node[key] = replacements[Math.floor(random() * replacements.length)];
    return;
  }
}

// One line per case: controller fixture, its pods, verdict with pods, message pattern.
const CRASHLOOP_POD =
  /^1\/3 replicas ready; 1 pod has failed \(web-7d9f8b6c5-x2k4p: container app in CrashLoopBackOff\)$/;
const WITH_PODS: [string, string[], HealthStatus, RegExp][] = [
  ["deployment-not-ready.yaml", ["pod-crashloopbackoff.yaml", "pod-running-ready.yaml"], "Failed", CRASHLOOP_POD],
  ["statefulset-not-ready.yaml", ["pod-unschedulable.yaml", "pod-crashloopbackoff.yaml"], "Failed", /2 pods have /],
  ["replicaset-scaling.yaml", ["pod-imagepullbackoff.yaml"], "InProgress", /^1\/2 replicas available$/],
  ["deployment-current.yaml", ["pod-crashloopbackoff.yaml"], "Current", /^3\/3 replicas ready$/],
  ["daemonset-not-ready.yaml", ["pod-crashloopbackoff.yaml"], "InProgress", /^1\/3 pods ready$/],
  ["deployment-lookalike-custom-group.yaml", ["pod-crashloopbackoff.yaml"], "Current", /no readiness rule/],
];

for (const [file, pods, status, message] of WITH_PODS) {
  test(`${file} with pods ${pods.join(", ")} -> ${status}`, () => {
    const verdict = assessHealthWithPods(load(file), pods.map(load), { now: NOW });
    assert.equal(verdict.status, status, `message: ${verdict.message}`);
    assert.match(verdict.message, message);
  });
}
