/**
 * kstatus's kind-independent rules (cli-utils `generic.go` and `status.go`
 * `Compute`). The first three steps run before any kind-specific rule and win
 * over it; the Ready condition and the "Current by default" step only apply to
 * kinds without a kind-specific rule.
 */
import { MalformedObjectError } from "./errors.ts";
import { conditionsOf, describeCondition, fieldAt, findCondition, type KubeObject, strictIntField } from "./fields.ts";
import { current, failed, type HealthAssessment, inProgress } from "./types.ts";

/** Steps 1-3: deletion, unobserved generation, Reconciling/Stalled. `undefined` means "no decision yet". */
export function assessGenericProperties(object: KubeObject, kind: string): HealthAssessment | undefined {
  const deletionTimestamp = fieldAt(object, "metadata.deletionTimestamp");
  if (deletionTimestamp !== undefined && deletionTimestamp !== null && typeof deletionTimestamp !== "string") {
    throw new MalformedObjectError("metadata.deletionTimestamp is not a string");
  }
  if (deletionTimestamp) return { status: "Terminating", message: `deletion requested at ${deletionTimestamp}` };

  const generation = assessObservedGeneration(object, kind);
  if (generation) return generation;

  // kstatus checks these in list order and takes the first one that is True.
  for (const condition of conditionsOf(object)) {
    if (condition.status !== "True") continue;
    if (condition.type === "Reconciling") return inProgress(describeCondition(condition, "Reconciling"));
    if (condition.type === "Stalled") return failed(describeCondition(condition, "Stalled"));
  }
  return undefined;
}

function assessObservedGeneration(object: KubeObject, kind: string): HealthAssessment | undefined {
  const generation = strictIntField(object, "metadata.generation");
  if (generation === undefined) return undefined;
  // An absent observedGeneration skips the check: many kinds never report one.
  const observed = strictIntField(object, "status.observedGeneration");
  if (observed === undefined || observed === generation) return undefined;
  return inProgress(`${kind} generation ${generation} not yet observed (controller saw ${observed})`);
}

/** Steps 5-6, for kinds kstatus has no specific rule for (custom resources, Ingress, HPA, RBAC...). */
export function assessByReadyCondition(object: KubeObject, currentMessage: string): HealthAssessment {
  const ready = findCondition(conditionsOf(object), "Ready");
  if (ready?.status === "True") return current(ready.message || "Ready");
  if (ready) return inProgress(`not Ready: ${describeCondition(ready, `Ready=${ready.status || "Unknown"}`)}`);
  return current(currentMessage);
}
