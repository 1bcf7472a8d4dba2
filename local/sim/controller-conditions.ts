/**
 * The conditions the deployment and HPA controllers write that say why a workload is stuck, for materialize.ts:
 * a rollout past its progress deadline, an HPA that cannot scale or measure its target (issue #33's causes).
 */
import { rfc3339 } from "./kube/store.ts";

// biome-ignore lint/suspicious/noExplicitAny: generated objects are untyped JSON
type Json = any;

// Kubernetes' sentinel for "no progress deadline" (the controller then never sets Progressing=False).
const NO_PROGRESS_DEADLINE = 2 ** 31 - 1;

/**
 * The deployment controller gives up on a rollout that made no progress for `progressDeadlineSeconds` (600 by
 * default): Progressing turns False with reason ProgressDeadlineExceeded. A never-ready Deployment created longer
 * ago than that is past it.
 */
export function pastProgressDeadline(deployment: Json, rsName: string, createdAt: Date, now: Date): void {
  const seconds = deployment.spec?.progressDeadlineSeconds ?? 600;
  if (typeof seconds !== "number" || seconds >= NO_PROGRESS_DEADLINE) return;
  const at = createdAt.getTime() + seconds * 1000;
  if (at >= now.getTime()) return;
  const progressing = deployment.status.conditions.find((c: Json) => c.type === "Progressing");
  Object.assign(progressing, {
    status: "False",
    reason: "ProgressDeadlineExceeded",
    message: `ReplicaSet "${rsName}" has timed out progressing.`,
    lastUpdateTime: rfc3339(new Date(at)),
    lastTransitionTime: rfc3339(new Date(at)),
  });
}

/**
 * The HPA controller's conditions, once every object is made (an HPA may come before its target): AbleToScale
 * False/FailedGetScale when the target does not exist; ScalingActive False/FailedGetResourceMetric when it scales on
 * a resource metric and the target has no ready pod to measure (no current metrics then); all True otherwise.
 */
export function autoscalerConditions(objects: Json[], stamp: string): void {
  for (const hpa of objects) {
    if (hpa.kind !== "HorizontalPodAutoscaler" || !hpa.status) continue;
    const ref = hpa.spec?.scaleTargetRef ?? {};
    const target = objects.find(
      (o) => o.kind === ref.kind && o.metadata?.name === ref.name && o.metadata?.namespace === hpa.metadata.namespace,
    );
    const condition = (type: string, status: string, reason: string, message: string) => ({
      type,
      status,
      reason,
      message,
      lastTransitionTime: stamp,
    });
    const resource = (hpa.spec?.metrics ?? []).find((m: Json) => m.type === "Resource")?.resource?.name;
    if (!target) {
      hpa.status.conditions = [
        condition(
          "AbleToScale",
          "False",
          "FailedGetScale",
          `the HPA controller was unable to get the target's current scale: ${String(ref.kind ?? "").toLowerCase()}s.apps "${ref.name}" not found`,
        ),
      ];
    } else if (resource && !target.status?.readyReplicas) {
      hpa.status.currentMetrics = null;
      hpa.status.conditions = [
        condition(
          "AbleToScale",
          "True",
          "SucceededGetScale",
          "the HPA controller was able to get the target's current scale",
        ),
        condition(
          "ScalingActive",
          "False",
          "FailedGetResourceMetric",
          `the HPA was unable to compute the replica count: failed to get ${resource} utilization: unable to get metrics for resource ${resource}: no metrics returned from resource metrics API`,
        ),
      ];
    } else {
      hpa.status.conditions = [
        condition("AbleToScale", "True", "ReadyForNewScale", "recommended size matches current size"),
        condition(
          "ScalingActive",
          "True",
          "ValidMetricFound",
          `the HPA was able to successfully calculate a replica count from ${resource ?? "cpu"} resource utilization (percentage of request)`,
        ),
        condition("ScalingLimited", "False", "DesiredWithinRange", "the desired count is within the acceptable range"),
      ];
    }
  }
}
