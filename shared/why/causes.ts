/**
 * The cause chain, one line per resource that is not Current: the workload → its pod → the container and what
 * happened to it (`Deployment api Failed → pod api-7d9-x2 → container api CrashLoopBackOff, last terminated Error,
 * exit code 1, 2m ago, 5 restarts`). Built from what the status already read: the manifest resources' health and
 * objects, and the related pods Helm lists (their selectors name the workloads that own them). Pure, bounded.
 */
import type { HealthStatus } from "../health/index.ts";
import { type ContainerProblem, describeContainer, oneLine, type PodProblems, podProblems } from "./containers.ts";

/** Pods named per cause: the first with a problem, and how many more there are. */
const PODS_NAMED = 1;
/** Causes kept per report: a release of hundreds of broken workloads still answers in a screenful. */
export const CAUSES_KEPT = 50;
/** Cause chains in a chat answer or a notification: the first few say why; the text route has them all. */
export const CAUSES_SHOWN = 3;

export interface Cause {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  health: HealthStatus;
  /** The pods with a problem (at most PODS_NAMED kept), and how many pods had one. */
  pods: PodProblems[];
  podsWithProblems: number;
  /** The chain in words, one line. */
  text: string;
}

export interface CauseInput {
  resources: readonly {
    index: number;
    apiVersion: string;
    kind: string;
    name: string;
    namespace?: string;
    health: { status: HealthStatus; message: string };
    object?: Record<string, unknown>;
  }[];
  /** Related pods per selector, with the manifest indexes of the workloads that select them. */
  related: readonly { owners: readonly number[]; objects: readonly Record<string, unknown>[] }[];
}

export function causesOf(input: CauseInput, now: Date): Cause[] {
  const podsByOwner = new Map<number, Record<string, unknown>[]>();
  for (const related of input.related) {
    for (const owner of related.owners) podsByOwner.set(owner, [...(podsByOwner.get(owner) ?? []), ...related.objects]);
  }
  const causes: Cause[] = [];
  for (const resource of input.resources) {
    if (resource.health.status === "Current" || causes.length >= CAUSES_KEPT) continue;
    const pods =
      resource.kind === "Pod" && resource.object ? [resource.object] : (podsByOwner.get(resource.index) ?? []);
    const troubled = pods.flatMap((pod) => {
      const problems = podProblems(pod);
      return problems && (problems.containers.length > 0 || problems.unschedulable !== undefined) ? [problems] : [];
    });
    if (troubled.length === 0) continue;
    const cause: Omit<Cause, "text"> = {
      apiVersion: resource.apiVersion,
      kind: resource.kind,
      name: resource.name,
      ...(resource.namespace ? { namespace: resource.namespace } : {}),
      health: resource.health.status,
      pods: troubled.slice(0, PODS_NAMED),
      podsWithProblems: troubled.length,
    };
    causes.push({ ...cause, text: chainText(cause, now) });
  }
  return causes;
}

function chainText(cause: Omit<Cause, "text">, now: Date): string {
  const links = [`${cause.kind} ${cause.name} ${cause.health}`];
  const [pod] = cause.pods;
  const more = cause.podsWithProblems - cause.pods.length;
  if (cause.kind !== "Pod") links.push(`pod ${pod.pod}${more > 0 ? ` (+${more} more)` : ""}`);
  if (pod.unschedulable !== undefined) links.push(`unschedulable: ${oneLine(pod.unschedulable)}`);
  const container = worstContainer(pod.containers);
  if (container) links.push(describeContainer(container, now));
  return links.join(" → ");
}

/** A container that crashed or cannot start says more than one merely not ready; init containers first (they block). */
function worstContainer(containers: readonly ContainerProblem[]): ContainerProblem | undefined {
  const rank = (c: ContainerProblem) => (c.waiting || c.terminated ? 0 : 1) * 2 + (c.init ? 0 : 1);
  return [...containers].sort((a, b) => rank(a) - rank(b))[0];
}
