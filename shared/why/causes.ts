/**
 * The cause chain, one line per resource that is not Current: the workload → its pod → the container and what
 * happened to it → the most telling event (`Deployment api Failed → pod api-7d9-x2 → container api CrashLoopBackOff,
 * last terminated Error, exit code 1, 2m ago, 5 restarts → event BackOff ×12 "Back-off restarting failed container"`). Built from what the status already read: the manifest resources' health and
 * objects, and the related pods Helm lists (their selectors name the workloads that own them). Pure, bounded.
 */
import type { HealthStatus } from "../health/index.ts";
import { type CauseCondition, conditionsOf, describeCondition } from "./conditions.ts";
import { type ContainerProblem, describeContainer, oneLine, type PodProblems, podProblems } from "./containers.ts";
import { describeEvent, ownedUids, type ReleaseEvent, type ReleaseEvents, releaseEvents } from "./events.ts";
import type { LogExcerpt, LogUnread } from "./log-mask.ts";

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
  /**
   * What the controllers say of it (conditions.ts): its own `Progressing=False ProgressDeadlineExceeded` or
   * `ReplicaFailure`, and an HPA of the release that scales it with `ScalingActive=False` / `AbleToScale=False`.
   */
  conditions?: CauseCondition[];
  /** The most telling event about it, its pods or their owners (a Warning, the newest), when events were read. */
  event?: ReleaseEvent;
  /** The crashed container's log excerpt, masked (logs.ts), or why there is none; only where logs were asked for. */
  log?: LogExcerpt | LogUnread;
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
  /** The events about the release's objects (events.ts), most telling first: each chain ends with its first. */
  events?: readonly ReleaseEvent[];
}

export function causesOf(input: CauseInput, now: Date): Cause[] {
  // Most releases an audit reads are healthy: nothing to index then (the audit's per-release CPU, docs/bench.md).
  if (input.resources.every((resource) => resource.health.status === "Current")) return [];
  const podsByOwner = new Map<number, Record<string, unknown>[]>();
  for (const related of input.related) {
    for (const owner of related.owners) podsByOwner.set(owner, [...(podsByOwner.get(owner) ?? []), ...related.objects]);
  }
  const causes: Cause[] = [];
  for (const resource of input.resources) {
    if (resource.health.status === "Current" || causes.length >= CAUSES_KEPT) continue;
    const pods =
      resource.kind === "Pod" && resource.object ? [resource.object] : (podsByOwner.get(resource.index) ?? []);
    const troubledPods = pods.filter((pod) => {
      const problems = podProblems(pod);
      return problems && (problems.containers.length > 0 || problems.unschedulable !== undefined);
    });
    const troubled = troubledPods.map((pod) => podProblems(pod)!);
    const event = input.events?.find((e) => ownedUids([resource.object], troubledPods).has(e.object.uid));
    const conditions = conditionsOf(resource, input.resources);
    if (troubled.length === 0 && !event && conditions.length === 0) continue;
    const cause: Omit<Cause, "text"> = {
      apiVersion: resource.apiVersion,
      kind: resource.kind,
      name: resource.name,
      ...(resource.namespace ? { namespace: resource.namespace } : {}),
      health: resource.health.status,
      pods: troubled.slice(0, PODS_NAMED),
      podsWithProblems: troubled.length,
      ...(conditions.length > 0 ? { conditions } : {}),
    };
    causes.push({ ...cause, ...(event ? { event } : {}), text: chainText(cause, now, event) });
  }
  return causes;
}

function chainText(cause: Omit<Cause, "text">, now: Date, event: ReleaseEvent | undefined): string {
  const links = [`${cause.kind} ${cause.name} ${cause.health}`];
  for (const condition of cause.conditions ?? []) links.push(describeCondition(condition, cause));
  const [pod] = cause.pods;
  if (pod) {
    const more = cause.podsWithProblems - cause.pods.length;
    if (cause.kind !== "Pod") links.push(`pod ${pod.pod}${more > 0 ? ` (+${more} more)` : ""}`);
    if (pod.unschedulable !== undefined) links.push(`unschedulable: ${oneLine(pod.unschedulable)}`);
    const container = worstContainer(pod.containers);
    if (container) links.push(describeContainer(container, now));
  }
  if (event) links.push(describeEvent(event));
  return links.join(" → ");
}

/**
 * What the health verdict cites (the `HEALTH:` line's `because …`, JSON `health.cause`): the first cause whose health
 * is the verdict (else the first) as `<Kind> <name>: <its most telling link>`, e.g. `Deployment api: container api
 * CrashLoopBackOff, exit code 1`. Nothing that ticks by itself (restarts, ages, pod names, event counts), so the same
 * trouble reads the same at every audit. None for a Current verdict.
 */
export function verdictCause(causes: readonly Cause[] | undefined, overall: HealthStatus): string | undefined {
  if (!causes?.length || overall === "Current") return undefined;
  const cause = causes.find((c) => c.health === overall) ?? causes[0];
  return oneLine(`${cause.kind} ${cause.name}: ${tellingLink(cause)}`, 240);
}

/** The root of the chain: a container, else an unschedulable pod, else a condition, else the event. */
function tellingLink(cause: Cause): string {
  const [pod] = cause.pods;
  const container = pod && worstContainer(pod.containers);
  if (container) {
    const what = `${container.init ? "init container" : "container"} ${container.container}`;
    const reason = container.waiting?.reason ?? container.terminated?.reason ?? "not ready";
    const ended = container.terminated ?? container.lastTerminated;
    const how = ended
      ? [...(["Error", reason].includes(ended.reason) ? [] : [ended.reason]), `exit code ${ended.exitCode}`]
      : [];
    return [`${what} ${reason}`, ...how].join(", ");
  }
  if (pod?.unschedulable !== undefined) return `pod unschedulable: ${oneLine(pod.unschedulable, 120)}`;
  const [condition] = cause.conditions ?? [];
  if (condition) return describeCondition({ ...condition, message: undefined }, cause);
  if (cause.event) return `event ${cause.event.reason}: ${oneLine(cause.event.message, 120)}`;
  return cause.health;
}

/** A container that crashed or cannot start says more than one merely not ready; init containers first (they block). */
function worstContainer(containers: readonly ContainerProblem[]): ContainerProblem | undefined {
  const rank = (c: ContainerProblem) => (c.waiting || c.terminated ? 0 : 1) * 2 + (c.init ? 0 : 1);
  return [...containers].sort((a, b) => rank(a) - rank(b))[0];
}

/** The namespace's events LIST as the kube layer answered it (kube/events.ts `EventsAnswer`). */
interface ListedEvents {
  outcome: string;
  message?: string;
  items?: unknown[];
  more?: boolean;
}

/**
 * Why, for a report: the events about the release (events.ts) from the namespace's LIST, and a cause chain per
 * resource not Current citing them. What build-report calls, once.
 */
export function explain(
  input: Omit<CauseInput, "events"> & { events?: ListedEvents },
  now: Date,
): { causes?: Cause[]; events?: ReleaseEvents } {
  let events: ReleaseEvents | undefined;
  if (input.events) {
    const answer = input.events;
    const pods = input.related.flatMap((related) => related.objects);
    const items =
      answer.outcome === "found" && (answer.items?.length ?? 0) > 0
        ? releaseEvents(
            answer.items ?? [],
            ownedUids(
              input.resources.map((r) => r.object),
              pods,
            ),
          )
        : [];
    // Nothing to say (read, none about the release): no `events` at all, as for a release without workloads.
    if (items.length > 0 || answer.outcome !== "found" || answer.more) {
      events = {
        items,
        ...(answer.outcome === "found" ? {} : { unread: answer.message ?? answer.outcome }),
        ...(answer.more ? { more: true as const } : {}),
      };
    }
  }
  const causes = causesOf({ ...input, events: events?.items }, now);
  return { ...(causes.length > 0 ? { causes } : {}), ...(events ? { events } : {}) };
}
