/**
 * Pod health (kstatus `podConditions`). kstatus only calls a pod Failed for
 * CrashLoopBackOff (while Running) or for staying unschedulable past a 15 s
 * window; ImagePullBackOff/ErrImagePull stay InProgress and a pod in phase
 * Failed is Current ("completed, but not successfully"). The verdicts follow
 * kstatus; the messages still name every waiting container and its reason so
 * a stuck image pull is visible (see docs/health.md, "disagreements").
 */
import { conditionsOf, describeCondition, findCondition, isRecord, type KubeObject, stringField } from "./fields.ts";
import { current, failed, type HealthAssessment, inProgress, unknown } from "./types.ts";

/** kstatus `ScheduleWindow`: a pod gets this long to be scheduled before Unschedulable counts as Failed. */
export const POD_SCHEDULE_WINDOW_MS = 15_000;

interface WaitingContainer {
  name: string;
  reason: string;
}

export function assessPod(object: KubeObject, now: Date): HealthAssessment {
  const conditions = conditionsOf(object);
  const phase = stringField(object, "status.phase", "");
  switch (phase) {
    case "Succeeded":
      return current("completed successfully");
    case "Failed":
      return current(`completed, but not successfully${podReason(object)}`);
    case "Running": {
      if (findCondition(conditions, "Ready", "True")) return current("Running and Ready");
      const waiting = waitingContainers(object, "containerStatuses");
      const crashLooping = waiting.filter((c) => c.reason === "CrashLoopBackOff").map((c) => c.name);
      if (crashLooping.length > 0) {
        const noun = crashLooping.length === 1 ? "container" : "containers";
        return failed(`${noun} ${crashLooping.join(", ")} in CrashLoopBackOff`);
      }
      return inProgress(`Running but not Ready${describeWaiting(waiting)}`);
    }
    case "Pending": {
      const scheduled = findCondition(conditions, "PodScheduled", "False");
      if (scheduled?.reason === "Unschedulable") {
        if (now.getTime() - POD_SCHEDULE_WINDOW_MS < creationTime(object)) return inProgress("not scheduled yet");
        return failed(`unschedulable: ${describeCondition(scheduled, "no node fits")}`);
      }
      const waiting = [
        ...waitingContainers(object, "initContainerStatuses"),
        ...waitingContainers(object, "containerStatuses"),
      ];
      return inProgress(`Pending${describeWaiting(waiting)}`);
    }
    case "":
      return inProgress("phase not reported yet");
    default:
      // kstatus errors on a phase it does not know (e.g. "Unknown" when the node is lost).
      return unknown(`unknown pod phase ${JSON.stringify(phase)}`);
  }
}

function waitingContainers(
  object: KubeObject,
  list: "containerStatuses" | "initContainerStatuses",
): WaitingContainer[] {
  const statuses = isRecord(object.status) ? object.status[list] : undefined;
  if (!Array.isArray(statuses)) return [];
  const result: WaitingContainer[] = [];
  for (const status of statuses) {
    if (!isRecord(status) || typeof status.name !== "string") continue;
    const waiting = isRecord(status.state) ? status.state.waiting : undefined;
    if (isRecord(waiting) && typeof waiting.reason === "string" && waiting.reason !== "") {
      result.push({ name: status.name, reason: waiting.reason });
    }
  }
  return result;
}

function describeWaiting(waiting: WaitingContainer[]): string {
  if (waiting.length === 0) return "";
  return `: ${waiting.map((c) => `container ${c.name} ${c.reason}`).join(", ")}`;
}

function podReason(object: KubeObject): string {
  const reason = stringField(object, "status.reason", "");
  return reason ? ` (${reason})` : "";
}

/** Like Go's zero time for a missing timestamp: an undated pod is treated as long past its window. */
function creationTime(object: KubeObject): number {
  const parsed = Date.parse(stringField(object, "metadata.creationTimestamp", ""));
  return Number.isNaN(parsed) ? Number.NEGATIVE_INFINITY : parsed;
}
