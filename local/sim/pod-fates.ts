/**
 * What the scheduler and the kubelet would make of a pod spec, decided from the spec alone (what helm or kubectl
 * applied), so a chart can be made unhealthy the way it would be on EKS. The conventions (docs/simulator.md,
 * "Pod states from the spec"):
 *  - requests (or limits) beyond a node's allocatable: unschedulable (`FailedScheduling`, Pending);
 *  - a `configMap`/`secret` volume whose object does not exist (not `optional`): `FailedMount`, ContainerCreating;
 *  - an image reference containing `does-not-exist`: ErrImagePull / ImagePullBackOff;
 *  - env `valueFrom`/`envFrom` naming a missing ConfigMap/Secret: CreateContainerConfigError;
 *  - env `SIM_MEMORY_USAGE` above `resources.limits.memory`: OOMKilled (exit code 137), CrashLoopBackOff;
 *  - env `SIM_EXIT_CODE=N` (N > 0): the container exits with N (reason Error), CrashLoopBackOff;
 *  - env `SIM_PROBE_FAIL=readiness|liveness` (comma list): that probe fails (`Unhealthy`; liveness restarts).
 * Init containers follow the same rules and block the app containers while they fail.
 */
import { quantityNumber } from "./kube/quantity.ts";

// biome-ignore lint/suspicious/noExplicitAny: pod specs are untyped JSON
type Json = any;

export type ContainerFate =
  | { kind: "running"; failingProbes: Array<"readiness" | "liveness"> }
  | { kind: "crash"; exitCode: number; reason: "Error" | "OOMKilled" }
  | { kind: "imagePull" }
  | { kind: "configError"; message: string };

export type PodFate =
  | { kind: "unschedulable"; message: string }
  | { kind: "mountFailure"; volume: string; message: string }
  | { kind: "started"; init: ContainerFate[]; containers: ContainerFate[] };

/** Does a ConfigMap or Secret exist (in the applied manifest or the cluster)? */
export type Exists = (kind: "ConfigMap" | "Secret", namespace: string, name: string) => boolean;

/** The simulated nodes: three m5.large (2 vCPU, 8 GiB), with EKS's allocatable after system reservations. */
export const SIM_NODES = ["ip-10-0-1-23.ec2.internal", "ip-10-0-2-41.ec2.internal", "ip-10-0-3-67.ec2.internal"];
export const NODE_ALLOCATABLE = { cpu: 1.93, memory: 7_220 * 1024 * 1024 };

const RUNNING: ContainerFate = { kind: "running", failingProbes: [] };

function envValue(container: Json, name: string): string | undefined {
  const entry = (container?.env ?? []).find((e: Json) => e?.name === name && typeof e.value === "string");
  return entry?.value;
}

/** The request a container makes of a node: requests, else limits (which default requests), else nothing. */
function requestOf(container: Json, resource: "cpu" | "memory"): number {
  const value = container?.resources?.requests?.[resource] ?? container?.resources?.limits?.[resource];
  return quantityNumber(value) ?? 0;
}

/** The scheduler's fit check against identical nodes: `0/3 nodes are available: 3 Insufficient cpu.` */
function schedulingProblem(spec: Json): string | undefined {
  const insufficient: string[] = [];
  for (const resource of ["cpu", "memory"] as const) {
    const main = (spec?.containers ?? []).reduce((sum: number, c: Json) => sum + requestOf(c, resource), 0);
    const init = Math.max(0, ...(spec?.initContainers ?? []).map((c: Json) => requestOf(c, resource)));
    if (Math.max(main, init) > NODE_ALLOCATABLE[resource])
      insufficient.push(`${SIM_NODES.length} Insufficient ${resource}`);
  }
  if (insufficient.length === 0) return undefined;
  const n = SIM_NODES.length;
  return `0/${n} nodes are available: ${insufficient.join(", ")}. preemption: 0/${n} nodes are available: ${n} No preemption victims found for incoming pod.`;
}

function missingVolume(spec: Json, namespace: string, exists: Exists): { volume: string; message: string } | undefined {
  for (const volume of spec?.volumes ?? []) {
    const configMap = volume?.configMap;
    if (configMap?.name && !configMap.optional && !exists("ConfigMap", namespace, configMap.name)) {
      return {
        volume: volume.name,
        message: `MountVolume.SetUp failed for volume "${volume.name}" : configmap "${configMap.name}" not found`,
      };
    }
    const secret = volume?.secret;
    if (secret?.secretName && !secret.optional && !exists("Secret", namespace, secret.secretName)) {
      return {
        volume: volume.name,
        message: `MountVolume.SetUp failed for volume "${volume.name}" : secret "${secret.secretName}" not found`,
      };
    }
  }
  return undefined;
}

function missingEnvSource(container: Json, namespace: string, exists: Exists): string | undefined {
  const refs: Array<{ kind: "ConfigMap" | "Secret"; ref: Json }> = [];
  for (const env of container?.env ?? []) {
    if (env?.valueFrom?.configMapKeyRef) refs.push({ kind: "ConfigMap", ref: env.valueFrom.configMapKeyRef });
    if (env?.valueFrom?.secretKeyRef) refs.push({ kind: "Secret", ref: env.valueFrom.secretKeyRef });
  }
  for (const from of container?.envFrom ?? []) {
    if (from?.configMapRef) refs.push({ kind: "ConfigMap", ref: from.configMapRef });
    if (from?.secretRef) refs.push({ kind: "Secret", ref: from.secretRef });
  }
  for (const { kind, ref } of refs) {
    if (ref?.name && !ref.optional && !exists(kind, namespace, ref.name)) {
      return `${kind === "ConfigMap" ? "configmap" : "secret"} "${ref.name}" not found`;
    }
  }
  return undefined;
}

export function containerFate(container: Json, namespace: string, exists: Exists): ContainerFate {
  if (String(container?.image ?? "").includes("does-not-exist")) return { kind: "imagePull" };
  const configProblem = missingEnvSource(container, namespace, exists);
  if (configProblem) return { kind: "configError", message: configProblem };
  const usage = quantityNumber(envValue(container, "SIM_MEMORY_USAGE"));
  const limit = quantityNumber(container?.resources?.limits?.memory);
  if (usage !== undefined && limit !== undefined && usage > limit)
    return { kind: "crash", exitCode: 137, reason: "OOMKilled" };
  const exitCode = Number(envValue(container, "SIM_EXIT_CODE") ?? "0");
  if (Number.isInteger(exitCode) && exitCode > 0 && exitCode < 256) return { kind: "crash", exitCode, reason: "Error" };
  const probes = (envValue(container, "SIM_PROBE_FAIL") ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter((p): p is "readiness" | "liveness" => p === "readiness" || p === "liveness");
  return { kind: "running", failingProbes: probes };
}

/** The fate of a pod from its spec. */
export function podFate(spec: Json, namespace: string, exists: Exists): PodFate {
  const unschedulable = schedulingProblem(spec);
  if (unschedulable) return { kind: "unschedulable", message: unschedulable };
  const mount = missingVolume(spec, namespace, exists);
  if (mount) return { kind: "mountFailure", ...mount };
  return {
    kind: "started",
    init: (spec?.initContainers ?? []).map((c: Json) => containerFate(c, namespace, exists)),
    containers: (spec?.containers ?? []).map((c: Json) => containerFate(c, namespace, exists)),
  };
}

/** The fate the materialize knobs force on every container (`crashLoop`, `imagePullBackOff`). */
export function forcedFate(spec: Json, fate: ContainerFate): PodFate {
  return {
    kind: "started",
    init: (spec?.initContainers ?? []).map(() => RUNNING),
    containers: (spec?.containers ?? []).map(() => fate),
  };
}

/** A fate that changes nothing: every container runs and passes its probes. */
export function healthyFate(spec: Json): PodFate {
  return forcedFate(spec, RUNNING);
}

/** Is the pod anything but scheduled with every container running and passing its probes? */
export function isUnhealthy(fate: PodFate): boolean {
  if (fate.kind !== "started") return true;
  return [...fate.init, ...fate.containers].some((c) => c.kind !== "running" || c.failingProbes.length > 0);
}

/** The index of the first init container that does not complete (it blocks the rest), or -1. */
export function blockingInit(fate: PodFate): number {
  return fate.kind === "started" ? fate.init.findIndex((c) => c.kind !== "running") : -1;
}
