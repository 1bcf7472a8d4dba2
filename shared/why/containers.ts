/**
 * What a pod's own status says about why it is not running: each container's waiting reason, its current or last
 * termination (reason, exit code, signal, when), restarts and readiness, init containers included, and a pod that
 * cannot be scheduled. Read from the pod objects the status already has (the related pods' LIST), so it costs no
 * request. Pure: the object in, plain data out; never throws on a shape it does not know (it says less).
 */
import { isRecord } from "../input/values.ts";
import { humanDuration } from "../kube/table.ts";

export interface Termination {
  reason: string;
  exitCode: number;
  signal?: number;
  finishedAt?: string;
}

/** One container that is not running well. */
export interface ContainerProblem {
  container: string;
  init: boolean;
  /** `state.waiting`: CrashLoopBackOff, ImagePullBackOff, CreateContainerConfigError, ... */
  waiting?: { reason: string; message?: string };
  /** `state.terminated` with a non-zero exit (a finished init container or Job pod exits 0: not a problem). */
  terminated?: Termination;
  /** `lastState.terminated`: the previous instance (what crashed before the back-off). */
  lastTerminated?: Termination;
  restarts: number;
  ready: boolean;
}

/** A pod and what is wrong with it; `problems` empty and no `unschedulable`: nothing to say. */
export interface PodProblems {
  pod: string;
  namespace?: string;
  phase?: string;
  /** `PodScheduled=False` (reason Unschedulable): the scheduler's message, e.g. "0/3 nodes are available: ...". */
  unschedulable?: string;
  containers: ContainerProblem[];
}

/** Waiting reasons of a container that is merely starting: not a cause. */
const BENIGN_WAITING = new Set(["ContainerCreating", "PodInitializing"]);

export function podProblems(pod: unknown): PodProblems | undefined {
  if (!isRecord(pod) || !isRecord(pod.metadata) || typeof pod.metadata.name !== "string") return undefined;
  const status = isRecord(pod.status) ? pod.status : {};
  const containers = [
    ...containerList(status.initContainerStatuses, true),
    ...containerList(status.containerStatuses, false),
  ];
  const unschedulable = unschedulableMessage(status.conditions);
  return {
    pod: pod.metadata.name,
    ...(typeof pod.metadata.namespace === "string" ? { namespace: pod.metadata.namespace } : {}),
    ...(typeof status.phase === "string" ? { phase: status.phase } : {}),
    ...(unschedulable !== undefined ? { unschedulable } : {}),
    containers,
  };
}

function containerList(statuses: unknown, init: boolean): ContainerProblem[] {
  if (!Array.isArray(statuses)) return [];
  return statuses.flatMap((entry) => {
    if (!isRecord(entry) || typeof entry.name !== "string") return [];
    const state = isRecord(entry.state) ? entry.state : {};
    const last = isRecord(entry.lastState) ? entry.lastState : {};
    const problem: ContainerProblem = {
      container: entry.name,
      init,
      restarts: typeof entry.restartCount === "number" ? entry.restartCount : 0,
      ready: entry.ready === true,
    };
    if (isRecord(state.waiting) && typeof state.waiting.reason === "string") {
      if (!BENIGN_WAITING.has(state.waiting.reason)) {
        problem.waiting = { reason: state.waiting.reason };
        if (typeof state.waiting.message === "string" && state.waiting.message) {
          problem.waiting.message = state.waiting.message;
        }
      }
    }
    const terminated = termination(state.terminated);
    if (terminated && terminated.exitCode !== 0) problem.terminated = terminated;
    const lastTerminated = termination(last.terminated);
    if (lastTerminated) problem.lastTerminated = lastTerminated;
    const running = isRecord(state.running);
    const troubled = problem.waiting || problem.terminated || (running && !problem.ready && !init);
    return troubled ? [problem] : [];
  });
}

function termination(value: unknown): Termination | undefined {
  if (!isRecord(value)) return undefined;
  const exitCode = typeof value.exitCode === "number" ? value.exitCode : undefined;
  if (exitCode === undefined) return undefined;
  const result: Termination = { reason: typeof value.reason === "string" ? value.reason : "Terminated", exitCode };
  if (typeof value.signal === "number" && value.signal !== 0) result.signal = value.signal;
  if (typeof value.finishedAt === "string") result.finishedAt = value.finishedAt;
  return result;
}

function unschedulableMessage(conditions: unknown): string | undefined {
  if (!Array.isArray(conditions)) return undefined;
  const scheduled = conditions.find((c) => isRecord(c) && c.type === "PodScheduled");
  if (!isRecord(scheduled) || scheduled.status !== "False") return undefined;
  return typeof scheduled.message === "string" && scheduled.message
    ? scheduled.message
    : String(scheduled.reason ?? "");
}

/**
 * One container in words, kubectl's vocabulary: `container api CrashLoopBackOff, last terminated Error, exit code 1,
 * 2m ago, 5 restarts`; `container web ImagePullBackOff: Back-off pulling image "x"`; `OOMKilled, exit code 137`.
 * (CrashLoopBackOff's own message only repeats the back-off; the termination says more.)
 */
export function describeContainer(problem: ContainerProblem, now: Date): string {
  const parts: string[] = [];
  const what = `${problem.init ? "init container" : "container"} ${problem.container}`;
  const said = problem.waiting?.message && problem.waiting.reason !== "CrashLoopBackOff" ? problem.waiting.message : "";
  if (problem.waiting) parts.push(`${what} ${problem.waiting.reason}${said ? `: ${oneLine(said)}` : ""}`);
  else if (problem.terminated) parts.push(`${what} terminated ${terminationText(problem.terminated, now)}`);
  else parts.push(`${what} not ready`);
  if (problem.lastTerminated && !problem.terminated) {
    parts.push(`last terminated ${terminationText(problem.lastTerminated, now)}`);
  }
  if (problem.restarts > 0) parts.push(`${problem.restarts} restart${problem.restarts === 1 ? "" : "s"}`);
  return parts.join(", ");
}

function terminationText(t: Termination, now: Date): string {
  const signal = t.signal !== undefined ? `, signal ${t.signal}` : "";
  const finished = t.finishedAt ? Date.parse(t.finishedAt) : Number.NaN;
  const ago =
    Number.isFinite(finished) && finished <= now.getTime() ? `, ${humanDuration(now.getTime() - finished)} ago` : "";
  return `${t.reason}, exit code ${t.exitCode}${signal}${ago}`;
}

/** Messages come from the cluster: one line, bounded, so a section stays a section. */
export function oneLine(text: string, max = 200): string {
  const line = text.replace(/[\r\n\t]+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
