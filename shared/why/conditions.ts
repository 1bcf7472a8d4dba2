/**
 * The controllers' own words about a workload that is not Current, as links of its cause chain: the Deployment's
 * `Progressing=False ProgressDeadlineExceeded` (the rollout gave up), a `ReplicaFailure=True` (quota, admission),
 * and the conditions of a HorizontalPodAutoscaler of the release that scales it (`ScalingActive=False
 * FailedGetResourceMetric`, `AbleToScale=False`). Read from the objects the status already has; pure, bounded, never
 * throws on a shape it does not know (it says less).
 */
import { isRecord } from "../input/values.ts";
import { oneLine } from "./containers.ts";

/** One condition cited by a cause: whose it is, and what it says. */
export interface CauseCondition {
  kind: string;
  name: string;
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** Conditions cited per cause: the workload's own and one HPA's make a chain still one line. */
const CONDITIONS_KEPT = 3;
/** A condition's message as cited: one line, bounded (it is cluster text). */
const MESSAGE_CHARS = 200;

/** The conditions that say something is wrong, per kind: type and the status that means trouble. */
const TELLING: Record<string, readonly (readonly [type: string, status: string])[]> = {
  Deployment: [
    ["Progressing", "False"],
    ["ReplicaFailure", "True"],
  ],
  ReplicaSet: [["ReplicaFailure", "True"]],
  StatefulSet: [["ReplicaFailure", "True"]],
  HorizontalPodAutoscaler: [
    ["AbleToScale", "False"],
    ["ScalingActive", "False"],
  ],
};

interface Described {
  kind: string;
  name: string;
  namespace?: string;
  object?: Record<string, unknown>;
}

/**
 * The telling conditions of `resource` and of the release's HPAs (among `all`) that scale it, the resource's own
 * first. `all`: every resource the status read (an HPA's target is matched by kind, name and namespace).
 */
export function conditionsOf(resource: Described, all: readonly Described[]): CauseCondition[] {
  const found = telling(resource);
  for (const other of all) {
    if (other.kind !== "HorizontalPodAutoscaler" || (other.namespace ?? "") !== (resource.namespace ?? "")) continue;
    const target = isRecord(other.object?.spec) ? other.object.spec.scaleTargetRef : undefined;
    if (isRecord(target) && target.kind === resource.kind && target.name === resource.name)
      found.push(...telling(other));
  }
  return found.slice(0, CONDITIONS_KEPT);
}

function telling(resource: Described): CauseCondition[] {
  const wanted = TELLING[resource.kind];
  const status = resource.object?.status;
  if (!wanted || !isRecord(status) || !Array.isArray(status.conditions)) return [];
  return status.conditions.flatMap((condition): CauseCondition[] => {
    if (!isRecord(condition) || typeof condition.type !== "string" || typeof condition.status !== "string") return [];
    if (!wanted.some(([type, bad]) => type === condition.type && bad === condition.status)) return [];
    return [
      {
        kind: resource.kind,
        name: resource.name,
        type: condition.type,
        status: condition.status,
        ...(typeof condition.reason === "string" && condition.reason ? { reason: oneLine(condition.reason, 100) } : {}),
        ...(typeof condition.message === "string" && condition.message
          ? { message: oneLine(condition.message, MESSAGE_CHARS) }
          : {}),
      },
    ];
  });
}

/**
 * A condition as a link: `Progressing=False ProgressDeadlineExceeded "ReplicaSet "api-7d9" has timed out
 * progressing."`; another object's is named first (`HorizontalPodAutoscaler api ScalingActive=False …`).
 */
export function describeCondition(condition: CauseCondition, owner: { kind: string; name: string }): string {
  const whose =
    condition.kind === owner.kind && condition.name === owner.name ? "" : `${condition.kind} ${condition.name} `;
  const reason = condition.reason ? ` ${condition.reason}` : "";
  const message = condition.message ? ` "${condition.message}"` : "";
  return `${whose}${condition.type}=${condition.status}${reason}${message}`;
}
