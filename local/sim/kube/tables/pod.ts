import type { KubeObject, PrintContext, TablePrinter, TableRowCells } from "../types.ts";
import { age, ageColumn, column, field, humanDuration, int, nameColumn } from "./common.ts";

// biome-ignore lint/suspicious/noExplicitAny: container statuses are untyped JSON
type Json = any;

const COLUMNS = [
  nameColumn(),
  column("Ready", "string", 0, "The aggregate readiness state of this pod for accepting traffic."),
  column("Status", "string", 0, "The aggregate status of the containers in this pod."),
  column(
    "Restarts",
    "string",
    0,
    "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
  ),
  ageColumn(),
  column("IP", "string", 1, "The IP address assigned to the pod"),
  column("Node", "string", 1, "The name of the node assigned to this pod"),
  column("Nominated Node", "string", 1, "The name of the node nominated by the scheduler"),
  column("Readiness Gates", "string", 1, "The readiness gates of the pod"),
];

/** kube-apiserver `printPod` (kubernetes-api.md §4.1), including Init:, sidecars and "(5m ago)". */
export const podPrinter: TablePrinter = {
  columns: () => COLUMNS,
  row: printPod,
};

function isSidecar(container: Json): boolean {
  return container?.restartPolicy === "Always";
}

function laterOf(current: number, finishedAt: unknown): number {
  const at = typeof finishedAt === "string" ? Date.parse(finishedAt) : Number.NaN;
  return !Number.isNaN(at) && at > current ? at : current;
}

export function printPod(pod: KubeObject, context: PrintContext): TableRowCells {
  const spec = (pod.spec ?? {}) as Json;
  const status = (pod.status ?? {}) as Json;
  const initSpecs: Json[] = spec.initContainers ?? [];
  const initByName = new Map(initSpecs.map((c) => [c.name, c]));
  let total = (spec.containers ?? []).length + initSpecs.filter(isSidecar).length;
  let ready = 0;
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart = 0;
  let sidecarLastRestart = 0;
  const phase: string = status.phase ?? "";
  let reason: string = status.reason ? status.reason : phase;
  for (const condition of status.conditions ?? []) {
    if (condition.type === "PodScheduled" && condition.reason === "SchedulingGated") reason = "SchedulingGated";
  }
  const result: TableRowCells = { cells: [] };
  if (phase === "Succeeded") {
    result.conditions = [
      { type: "Completed", status: "True", reason: "Succeeded", message: "The pod has completed successfully." },
    ];
  } else if (phase === "Failed") {
    result.conditions = [{ type: "Completed", status: "True", reason: "Failed", message: "The pod failed." }];
  }

  let initializing = false;
  const initStatuses: Json[] = status.initContainerStatuses ?? [];
  for (let i = 0; i < initStatuses.length; i++) {
    const container = initStatuses[i];
    restarts += int(container.restartCount);
    lastRestart = laterOf(lastRestart, container.lastState?.terminated?.finishedAt);
    const sidecar = isSidecar(initByName.get(container.name));
    if (sidecar) {
      sidecarRestarts += int(container.restartCount);
      sidecarLastRestart = laterOf(sidecarLastRestart, container.lastState?.terminated?.finishedAt);
    }
    const terminated = container.state?.terminated;
    const waiting = container.state?.waiting;
    if (terminated && int(terminated.exitCode) === 0) continue;
    if (sidecar && container.started === true) {
      if (container.ready) ready++;
      continue;
    }
    if (terminated) {
      if (!terminated.reason) {
        reason = terminated.signal ? `Init:Signal:${terminated.signal}` : `Init:ExitCode:${int(terminated.exitCode)}`;
      } else {
        reason = `Init:${terminated.reason}`;
      }
    } else if (waiting?.reason && waiting.reason !== "PodInitializing") {
      reason = `Init:${waiting.reason}`;
    } else {
      reason = `Init:${i}/${initSpecs.length}`;
    }
    initializing = true;
    break;
  }

  const initializedTrue = (status.conditions ?? []).some((c: Json) => c.type === "Initialized" && c.status === "True");
  if (!initializing || initializedTrue) {
    restarts = sidecarRestarts;
    lastRestart = sidecarLastRestart;
    let hasRunning = false;
    let errorReason = "";
    const statuses: Json[] = status.containerStatuses ?? [];
    for (let i = statuses.length - 1; i >= 0; i--) {
      const container = statuses[i];
      restarts += int(container.restartCount);
      lastRestart = laterOf(lastRestart, container.lastState?.terminated?.finishedAt);
      const waiting = container.state?.waiting;
      const terminated = container.state?.terminated;
      if (waiting?.reason) {
        reason = waiting.reason;
      } else if (terminated) {
        if (terminated.reason) reason = terminated.reason;
        else reason = terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${int(terminated.exitCode)}`;
        if (int(terminated.exitCode) !== 0) errorReason = reason;
      } else if (container.ready && container.state?.running) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === "Completed") {
      const podReady = (status.conditions ?? []).some((c: Json) => c.type === "Ready" && c.status === "True");
      if (hasRunning && podReady) reason = "Running";
      else if (errorReason) reason = errorReason;
      else if (hasRunning) reason = "NotReady";
    }
  }

  const deleting = Boolean(pod.metadata?.deletionTimestamp);
  if (deleting && status.reason === "NodeLost") reason = "Unknown";
  else if (deleting && phase !== "Succeeded" && phase !== "Failed") reason = "Terminating";

  let restartCell = String(restarts);
  if (restarts !== 0 && lastRestart > 0) {
    restartCell = `${restarts} (${humanDuration(context.now.getTime() - lastRestart)} ago)`;
  }

  const gates: Json[] = spec.readinessGates ?? [];
  let gatesCell = "<none>";
  if (gates.length > 0) {
    const trueCount = gates.filter((gate) => {
      const condition = (status.conditions ?? []).find((c: Json) => c.type === gate.conditionType);
      return condition?.status === "True";
    }).length;
    gatesCell = `${trueCount}/${gates.length}`;
  }
  total = Math.max(total, 0);
  result.cells = [
    pod.metadata?.name ?? "",
    `${ready}/${total}`,
    reason,
    restartCell,
    age(pod, context),
    field(status, "podIPs", 0, "ip") || status.podIP || "<none>",
    spec.nodeName || "<none>",
    status.nominatedNodeName || "<none>",
    gatesCell,
  ];
  return result;
}
