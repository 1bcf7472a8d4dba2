/**
 * kstatus's polling layer for pod controllers (cli-utils
 * `polling/statusreaders/pod_controller.go`): a Deployment, ReplicaSet or
 * StatefulSet that is InProgress while one of its pods is Failed
 * (CrashLoopBackOff, unschedulable) will not recover on its own, so it is
 * Failed. This is what turns "1/3 replicas ready" into a verdict that says why.
 * The pods are the ones the status report already lists as `v1/Pod(related)`
 * (selected by the controller's spec.selector), so it costs no extra request.
 */
import { assessHealth } from "./assess.ts";
import { isRecord, stringField } from "./fields.ts";
import type { AssessOptions, HealthAssessment } from "./types.ts";

const POD_CONTROLLERS = new Set([
  "apps/Deployment",
  "extensions/Deployment",
  "apps/ReplicaSet",
  "extensions/ReplicaSet",
  "apps/StatefulSet",
]);

export function isPodController(object: Record<string, unknown>): boolean {
  if (!isRecord(object) || typeof object.apiVersion !== "string" || typeof object.kind !== "string") return false;
  const group = object.apiVersion.includes("/") ? object.apiVersion.slice(0, object.apiVersion.indexOf("/")) : "";
  return POD_CONTROLLERS.has(`${group}/${object.kind}`);
}

/** `assessHealth` plus the failed-pod rule; for other kinds it is exactly `assessHealth`. */
export function assessHealthWithPods(
  object: Record<string, unknown>,
  pods: Record<string, unknown>[],
  options: AssessOptions = {},
): HealthAssessment {
  const verdict = assessHealth(object, options);
  if (verdict.status !== "InProgress" || !isPodController(object)) return verdict;
  const failedPods = pods
    .map((pod) => ({ name: stringField(pod, "metadata.name", "?"), verdict: assessHealth(pod, options) }))
    .filter((pod) => pod.verdict.status === "Failed");
  if (failedPods.length === 0) return verdict;
  const first = failedPods[0];
  const count = failedPods.length === 1 ? "1 pod has failed" : `${failedPods.length} pods have failed`;
  return { status: "Failed", message: `${verdict.message}; ${count} (${first.name}: ${first.verdict.message})` };
}
