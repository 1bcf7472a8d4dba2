/**
 * Service, Ingress, PersistentVolumeClaim, PodDisruptionBudget,
 * CustomResourceDefinition and the always-ready kinds (kstatus `core.go`).
 * Ingress has no kstatus rule: it goes through the generic rules, and only its
 * message is specific (so a missing address is visible without changing the verdict);
 * the same holds for HorizontalPodAutoscaler.
 */
import {
  conditionsOf,
  describeCondition,
  fieldAt,
  intField,
  isRecord,
  type KubeObject,
  stringField,
} from "./fields.ts";
import { current, failed, type HealthAssessment, inProgress } from "./types.ts";

export function assessService(object: KubeObject): HealthAssessment {
  const type = stringField(object, "spec.type", "ClusterIP");
  const clusterIP = stringField(object, "spec.clusterIP", "");
  if (type !== "LoadBalancer") return current(clusterIP ? `${type} ${clusterIP}` : type);
  // kstatus only waits for the cluster IP; a pending cloud load balancer does not block it.
  if (clusterIP === "") return inProgress("LoadBalancer has no cluster IP yet");
  const addresses = loadBalancerAddresses(object);
  if (addresses.length === 0) return current("LoadBalancer external address not assigned yet");
  return current(`LoadBalancer ${addresses.join(", ")}`);
}

/** Message for an Ingress that the generic rules found Current. */
export function describeIngress(object: KubeObject): string {
  const addresses = loadBalancerAddresses(object);
  return addresses.length === 0 ? "no address assigned yet" : `address ${addresses.join(", ")}`;
}

function loadBalancerAddresses(object: KubeObject): string[] {
  const ingress = fieldAt(object, "status.loadBalancer.ingress");
  if (!Array.isArray(ingress)) return [];
  return ingress
    .filter(isRecord)
    .map((entry) => entry.hostname ?? entry.ip)
    .filter((address): address is string => typeof address === "string" && address !== "");
}

export function assessPersistentVolumeClaim(object: KubeObject): HealthAssessment {
  const phase = stringField(object, "status.phase", "");
  if (phase === "Bound") return current("Bound");
  return inProgress(`not Bound (phase ${phase || "unknown"})`);
}

export function assessPodDisruptionBudget(object: KubeObject): HealthAssessment {
  // Reaching this point means the generic generation check passed: the budget is computed.
  return current(`${intField(object, "status.disruptionsAllowed", 0)} disruptions allowed`);
}

export function assessCustomResourceDefinition(object: KubeObject): HealthAssessment {
  for (const condition of conditionsOf(object)) {
    if (condition.type === "NamesAccepted" && condition.status === "False") {
      return failed(`names not accepted: ${describeCondition(condition, "name conflict")}`);
    }
    if (condition.type === "Established") {
      if (condition.status === "False" && condition.reason !== "Installing") {
        return failed(`not established: ${describeCondition(condition, "Established=False")}`);
      }
      if (condition.status === "True") return current("established");
    }
  }
  return inProgress("being installed (not yet Established)");
}

export function assessAlwaysReady(): HealthAssessment {
  return current("exists (always ready)");
}

/** Message for an HPA that the generic rules found Current; scaling trouble is named but, as in kstatus, not Failed. */
export function describeHorizontalPodAutoscaler(object: KubeObject): string {
  const currentReplicas = intField(object, "status.currentReplicas", 0);
  const desired = intField(object, "status.desiredReplicas", currentReplicas);
  const min = intField(object, "spec.minReplicas", 1);
  const max = intField(object, "spec.maxReplicas", 0);
  const text = `${currentReplicas} replicas (desired ${desired}, range ${min}-${max})`;
  const trouble = conditionsOf(object).find(
    (c) => (c.type === "AbleToScale" || c.type === "ScalingActive") && c.status === "False",
  );
  return trouble ? `${text}; ${trouble.type}=False: ${describeCondition(trouble, "no reason given")}` : text;
}
