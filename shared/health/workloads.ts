/**
 * Replica-managing controllers (kstatus `core.go`: deploymentConditions,
 * replicasetConditions, stsConditions, daemonsetConditions). The checks run in
 * kstatus's order, so the first shortfall found is the one reported.
 */
import {
  conditionsOf,
  describeCondition,
  fieldAt,
  intField,
  type KubeObject,
  strictIntField,
  stringField,
} from "./fields.ts";
import { current, failed, type HealthAssessment, inProgress } from "./types.ts";

// Kubernetes' own sentinel for "no progress deadline": the controller never sets Progressing then.
const NO_PROGRESS_DEADLINE = 2 ** 31 - 1;

export function assessDeployment(object: KubeObject): HealthAssessment {
  let progressing = intField(object, "spec.progressDeadlineSeconds", NO_PROGRESS_DEADLINE) === NO_PROGRESS_DEADLINE;
  let available = false;
  for (const condition of conditionsOf(object)) {
    if (condition.type === "Progressing") {
      if (condition.reason === "ProgressDeadlineExceeded") {
        return failed(`progress deadline exceeded${condition.message ? `: ${condition.message}` : ""}`);
      }
      if (condition.status === "True" && condition.reason === "NewReplicaSetAvailable") progressing = true;
    } else if (condition.type === "Available" && condition.status === "True") {
      available = true;
    }
  }

  const spec = intField(object, "spec.replicas", 1); // the controller's default
  const replicas = intField(object, "status.replicas", 0);
  const updated = intField(object, "status.updatedReplicas", 0);
  const ready = intField(object, "status.readyReplicas", 0);
  const availableReplicas = intField(object, "status.availableReplicas", 0);

  const shortfall =
    firstShortfall(spec, [
      [replicas, "replicas created"],
      [updated, "replicas updated"],
    ]) ??
    surplus(replicas, spec, "old") ??
    firstShortfall(updated, [[availableReplicas, "updated replicas available"]]) ??
    firstShortfall(spec, [[ready, "replicas ready"]]);
  if (shortfall) return shortfall;
  // kstatus has no paused case: a paused rollout stays InProgress (Progressing=Unknown, DeploymentPaused).
  if (!progressing)
    return inProgress(`new ReplicaSet not yet available${paused(object) ? " (Deployment is paused)" : ""}`);
  if (!available) return inProgress("Deployment not Available");
  return current(`${ready}/${spec} replicas ready`);
}

function paused(object: KubeObject): boolean {
  return fieldAt(object, "spec.paused") === true;
}

export function assessReplicaSet(object: KubeObject): HealthAssessment {
  const replicaFailure = conditionsOf(object).find((c) => c.type === "ReplicaFailure" && c.status === "True");
  // kstatus keeps this InProgress (not Failed): quota or admission may still let pods through.
  if (replicaFailure) return inProgress(`replica failure: ${describeCondition(replicaFailure, "check the pods")}`);

  const spec = intField(object, "spec.replicas", 1);
  const ready = intField(object, "status.readyReplicas", 0);
  return (
    firstShortfall(spec, [
      [intField(object, "status.fullyLabeledReplicas", 0), "replicas labelled"],
      [intField(object, "status.availableReplicas", 0), "replicas available"],
      [ready, "replicas ready"],
    ]) ??
    surplus(intField(object, "status.replicas", 0), spec, "extra") ??
    current(`${ready}/${spec} replicas ready`)
  );
}

export function assessStatefulSet(object: KubeObject): HealthAssessment {
  // OnDelete means a human rolls pods; the controller's progress says nothing about health.
  if (stringField(object, "spec.updateStrategy.type", "") === "OnDelete") {
    return current("OnDelete update strategy: pods are replaced manually");
  }
  const spec = intField(object, "spec.replicas", 1);
  const replicas = intField(object, "status.replicas", 0);
  const ready = intField(object, "status.readyReplicas", 0);
  const currentReplicas = intField(object, "status.currentReplicas", 0);
  const updated = intField(object, "status.updatedReplicas", 0);
  const partition = intField(object, "spec.updateStrategy.rollingUpdate.partition", -1);

  const shortfall =
    firstShortfall(spec, [
      [replicas, "replicas created"],
      [ready, "replicas ready"],
    ]) ?? surplus(replicas, spec, "extra");
  if (shortfall) return shortfall;
  // A partitioned rollout is done once the ordinals above the partition are updated;
  // the revisions then legitimately differ, so kstatus skips that check.
  if (partition !== -1) {
    const target = spec - partition;
    if (updated < target) return inProgress(`partitioned rollout: ${updated}/${target} replicas updated`);
    return current(`partitioned rollout complete: ${updated} replicas updated, ${ready}/${spec} ready`);
  }
  if (spec > currentReplicas) return inProgress(`${currentReplicas}/${spec} replicas at the current revision`);
  const currentRevision = stringField(object, "status.currentRevision", "");
  const updateRevision = stringField(object, "status.updateRevision", "");
  if (currentRevision !== updateRevision) {
    return inProgress(`rolling update: revision ${currentRevision || "(none)"} -> ${updateRevision || "(none)"}`);
  }
  return current(`${ready}/${spec} replicas ready`);
}

export function assessDaemonSet(object: KubeObject): HealthAssessment {
  // Stricter than the generic check: a DaemonSet the controller has acted on always has both fields.
  if (strictIntField(object, "metadata.generation") === undefined) {
    return inProgress("DaemonSet metadata.generation not set yet");
  }
  if (strictIntField(object, "status.observedGeneration") === undefined) {
    return inProgress("DaemonSet not yet observed by its controller");
  }
  const desired = intField(object, "status.desiredNumberScheduled", -1);
  if (desired === -1) return inProgress("DaemonSet has no desired pod count yet");
  const ready = intField(object, "status.numberReady", 0);
  return (
    firstShortfall(desired, [
      [intField(object, "status.currentNumberScheduled", 0), "pods scheduled"],
      [intField(object, "status.updatedNumberScheduled", 0), "pods updated"],
      [intField(object, "status.numberAvailable", 0), "pods available"],
      [ready, "pods ready"],
    ]) ?? current(`${ready}/${desired} pods ready`)
  );
}

/** kstatus's `want > have` checks, in its order: the first count short of `want`, said as `2/3 replicas ready`. */
function firstShortfall(want: number, counts: readonly (readonly [have: number, what: string])[]) {
  const short = counts.find(([have]) => want > have);
  return short && inProgress(`${short[0]}/${want} ${short[1]}`);
}

/** More replicas than wanted: the old or extra ones are still terminating. */
function surplus(replicas: number, spec: number, which: "old" | "extra") {
  return replicas > spec ? inProgress(`${replicas - spec} ${which} replicas pending termination`) : undefined;
}
