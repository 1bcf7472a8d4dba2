/**
 * The one dispatcher: a live object in, a kstatus verdict out. Like kstatus,
 * kind-specific rules are keyed by `group/Kind` (core kinds by `Kind` alone), so
 * a custom resource that happens to be called "Deployment" is not mistaken for
 * apps/Deployment. Never throws: anything it cannot judge is `Unknown` with the
 * reason, which is what kstatus's poller reports for a Compute error.
 */
import { systemClock } from "../ports.ts";
import { assessCronJob, assessJob } from "./batch.ts";
import { MalformedObjectError } from "./errors.ts";
import { isRecord, type KubeObject } from "./fields.ts";
import { assessByReadyCondition, assessGenericProperties } from "./generic.ts";
import { assessPod } from "./pods.ts";
import {
  assessAlwaysReady,
  assessCustomResourceDefinition,
  assessPersistentVolumeClaim,
  assessPodDisruptionBudget,
  assessService,
  describeHorizontalPodAutoscaler,
  describeIngress,
} from "./simple-kinds.ts";
import type { AssessOptions, HealthAssessment } from "./types.ts";
import { assessDaemonSet, assessDeployment, assessReplicaSet, assessStatefulSet } from "./workloads.ts";

type KindRule = (object: KubeObject, now: Date) => HealthAssessment;

/** kstatus `legacyTypes`, exactly: the kinds with a rule of their own. */
const KIND_RULES: Record<string, KindRule> = {
  Service: assessService,
  Pod: assessPod,
  Secret: assessAlwaysReady,
  ConfigMap: assessAlwaysReady,
  PersistentVolumeClaim: assessPersistentVolumeClaim,
  "apps/StatefulSet": assessStatefulSet,
  "apps/DaemonSet": assessDaemonSet,
  "extensions/DaemonSet": assessDaemonSet,
  "apps/Deployment": assessDeployment,
  "extensions/Deployment": assessDeployment,
  "apps/ReplicaSet": assessReplicaSet,
  "extensions/ReplicaSet": assessReplicaSet,
  "policy/PodDisruptionBudget": assessPodDisruptionBudget,
  "batch/CronJob": assessCronJob,
  "batch/Job": assessJob,
  "apiextensions.k8s.io/CustomResourceDefinition": assessCustomResourceDefinition,
};

/** Messages (never verdicts) for kinds kstatus judges generically but users still want described. */
const CURRENT_MESSAGES: Record<string, (object: KubeObject) => string> = {
  "networking.k8s.io/Ingress": describeIngress,
  "extensions/Ingress": describeIngress,
  "autoscaling/HorizontalPodAutoscaler": describeHorizontalPodAutoscaler,
};

export function assessHealth(object: Record<string, unknown>, options: AssessOptions = {}): HealthAssessment {
  if (!isRecord(object)) return { status: "Unknown", message: "not a Kubernetes object" };
  const kind = object.kind;
  const apiVersion = object.apiVersion;
  if (typeof kind !== "string" || kind === "" || typeof apiVersion !== "string" || apiVersion === "") {
    return { status: "Unknown", message: "object has no kind or apiVersion" };
  }
  if (kind === "PartialObjectMetadata" || kind === "PartialObjectMetadataList") {
    // Happens when the Table was requested without includeObject=Object: there is no status to judge.
    return { status: "Unknown", message: "only metadata was read (request includeObject=Object)" };
  }
  const key = ruleKey(apiVersion, kind);
  try {
    const generic = assessGenericProperties(object, kind);
    if (generic) return generic;
    const rule = KIND_RULES[key];
    if (rule) return rule(object, options.now ?? systemClock.now());
    return assessByReadyCondition(
      object,
      CURRENT_MESSAGES[key]?.(object) ?? "exists (no readiness rule for this kind)",
    );
  } catch (error) {
    if (error instanceof MalformedObjectError) return { status: "Unknown", message: `cannot assess: ${error.message}` };
    // A bug here must not take the whole status report down; the verdict says it could not judge.
    return { status: "Unknown", message: `cannot assess: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** `apps/v1` + `Deployment` -> `apps/Deployment`; core `v1` + `Pod` -> `Pod`. */
function ruleKey(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf("/");
  return slash === -1 ? kind : `${apiVersion.slice(0, slash)}/${kind}`;
}
