import { createHash } from "node:crypto";
import { rfc3339 } from "./kube/store.ts";
import { blockingInit, type ContainerFate, forcedFate, healthyFate, type PodFate } from "./pod-fates.ts";

export type PodHealth = "ready" | "crashLoop" | "imagePull" | "succeeded" | "failed";

// biome-ignore lint/suspicious/noExplicitAny: generated objects are untyped JSON
type Json = any;

export const SIM_NODE = "ip-10-0-1-23.ec2.internal";
const SIM_NODE_IP = "10.0.1.23";

/** Owner references (and event uids) are written with this placeholder uid; the cluster swaps in the real uid. */
export const OWNER_UID_PREFIX = "@owner:";

/** How long ago the last crash of a CrashLoopBackOff pod finished, so RESTARTS reads "5 (2m14s ago)". */
const LAST_CRASH_AGO_MS = 134_000;

/**
 * The last crash of a CrashLoopBackOff container: LAST_CRASH_AGO_MS before now, but never before
 * the pod was created (a pod made "just now" cannot have crashed 2 minutes ago), nor after now.
 */
export function lastCrashOf(createdAt: Date, now: Date): { startedAt: Date; finishedAt: Date } {
  const created = Math.min(createdAt.getTime(), now.getTime());
  const finishedAt = Math.max(now.getTime() - LAST_CRASH_AGO_MS, created);
  return { startedAt: new Date(Math.max(finishedAt - 1000, created)), finishedAt: new Date(finishedAt) };
}

function podIp(namespace: string, name: string): string {
  const digest = createHash("sha256").update(`${namespace}/${name}`).digest();
  return `10.0.${(digest[0] % 254) + 1}.${(digest[1] % 254) + 1}`;
}

const containerId = (seed: string) => `containerd://${createHash("sha256").update(seed).digest("hex")}`;

const imageIdOf = (image: unknown) =>
  `docker.io/library/${String(image).split(":")[0]}@sha256:${createHash("sha256").update(String(image)).digest("hex")}`;

/** How a pod's containers are made: the legacy knobs, or a fate decided from the spec (pod-fates.ts). */
export function fateOf(health: PodHealth, spec: Json): PodFate {
  if (health === "crashLoop") return forcedFate(spec, { kind: "crash", exitCode: 1, reason: "Error" });
  if (health === "imagePull") return forcedFate(spec, { kind: "imagePull" });
  return healthyFate(spec);
}

/**
 * A Pod as the kubelet would report it, from a pod template: `succeeded`/`failed` (Job pods), or a fate — given
 * (decided from the spec by pod-fates.ts) or forced by the `crashLoop`/`imagePull` knobs.
 */
export function podFor(input: {
  name: string;
  namespace: string;
  template: Json;
  owner?: Json;
  health: PodHealth;
  createdAt: Date;
  now: Date;
  labels?: Record<string, string>;
  fate?: PodFate;
}): Json {
  const { name, namespace, template, health, createdAt, now } = input;
  const started = rfc3339(createdAt);
  const spec: Json = {
    restartPolicy: "Always",
    terminationGracePeriodSeconds: 30,
    dnsPolicy: "ClusterFirst",
    schedulerName: "default-scheduler",
    ...structuredClone(template?.spec ?? {}),
    nodeName: SIM_NODE,
  };
  if (spec.serviceAccountName) spec.serviceAccount = spec.serviceAccountName;
  const finished = health === "succeeded" || health === "failed";
  const fate = finished ? healthyFate(spec) : (input.fate ?? fateOf(health, spec));
  if (fate.kind === "unschedulable") delete spec.nodeName;
  const containers: Json[] = spec.containers ?? [];
  const ip = podIp(namespace, name);
  const lastCrash = lastCrashOf(createdAt, now);
  const condition = (type: string, status: boolean, reason?: string, message?: string) => ({
    type,
    status: status ? "True" : "False",
    lastProbeTime: null,
    lastTransitionTime: started,
    ...(reason && !status ? { reason } : {}),
    ...(message && !status ? { message } : {}),
  });
  const id = (suffix: string) => containerId(`${namespace}/${name}/${suffix}`);
  const waiting = (container: Json, reason: string, message?: string) => ({
    name: container.name,
    image: container.image,
    imageID: "",
    ready: false,
    started: false,
    restartCount: 0,
    state: { waiting: { reason, ...(message ? { message } : {}) } },
    lastState: {},
  });
  const crashed = (suffix: string, exitCode: number, reason: string) => ({
    exitCode,
    reason,
    startedAt: rfc3339(lastCrash.startedAt),
    finishedAt: rfc3339(lastCrash.finishedAt),
    containerID: id(`${suffix}/previous`),
  });
  const statusOf = (container: Json, fate: ContainerFate, suffix: string): Json => {
    const base = {
      name: container.name,
      image: container.image,
      imageID: imageIdOf(container.image),
      containerID: id(suffix),
    };
    switch (fate.kind) {
      case "imagePull":
        return {
          name: container.name,
          image: container.image,
          imageID: "",
          ready: false,
          started: false,
          restartCount: 0,
          state: { waiting: { reason: "ImagePullBackOff", message: `Back-off pulling image "${container.image}"` } },
          lastState: {},
        };
      case "configError":
        return waiting(container, "CreateContainerConfigError", fate.message);
      case "crash":
        return {
          ...base,
          ready: false,
          started: false,
          restartCount: 5,
          state: {
            waiting: {
              reason: "CrashLoopBackOff",
              message: `back-off 2m40s restarting failed container=${container.name} pod=${name}_${namespace}`,
            },
          },
          lastState: { terminated: crashed(suffix, fate.exitCode, fate.reason) },
        };
      default: {
        const liveness = fate.failingProbes.includes("liveness");
        return {
          ...base,
          ready: fate.failingProbes.length === 0,
          started: true,
          restartCount: liveness ? 3 : 0,
          state: { running: { startedAt: liveness ? rfc3339(lastCrash.finishedAt) : started } },
          lastState: liveness ? { terminated: crashed(suffix, 137, "Error") } : {},
        };
      }
    }
  };
  const finishedStatus = (container: Json, index: number): Json => {
    const exitCode = health === "succeeded" ? 0 : 1;
    return {
      name: container.name,
      image: container.image,
      imageID: imageIdOf(container.image),
      containerID: id(String(index)),
      ready: false,
      started: false,
      restartCount: 0,
      state: {
        terminated: {
          exitCode,
          reason: exitCode === 0 ? "Completed" : "Error",
          startedAt: started,
          finishedAt: rfc3339(new Date(createdAt.getTime() + 7_000)),
          containerID: id(String(index)),
        },
      },
      lastState: {},
    };
  };
  if (finished && spec.restartPolicy === "Always") spec.restartPolicy = "Never";
  const blocking = blockingInit(fate);
  const completedInit = (c: Json, i: number) => ({
    name: c.name,
    image: c.image,
    imageID: "",
    containerID: id(`init/${i}`),
    ready: true,
    started: false,
    restartCount: 0,
    state: { terminated: { exitCode: 0, reason: "Completed", startedAt: started, finishedAt: started } },
    lastState: {},
  });
  const initSpecs: Json[] = spec.initContainers ?? [];
  const initStatuses =
    fate.kind === "unschedulable"
      ? []
      : initSpecs.map((c: Json, i: number) => {
          if (fate.kind === "mountFailure") return waiting(c, "PodInitializing");
          if (blocking < 0 || i < blocking) return completedInit(c, i);
          if (i === blocking) return statusOf(c, fate.init[i], `init/${i}`);
          return waiting(c, "PodInitializing");
        });
  const containerStatuses =
    fate.kind === "unschedulable"
      ? []
      : containers.map((c: Json, i: number) => {
          if (finished) return finishedStatus(c, i);
          if (fate.kind === "mountFailure") return waiting(c, "ContainerCreating");
          if (blocking >= 0) return waiting(c, "PodInitializing");
          return statusOf(c, fate.containers[i], String(i));
        });
  const ready = !finished && containerStatuses.length > 0 && containerStatuses.every((s: Json) => s.ready);
  const running = containerStatuses.some((s: Json) => s.state.running || s.lastState.terminated);
  const phase = health === "succeeded" ? "Succeeded" : health === "failed" ? "Failed" : running ? "Running" : "Pending";
  const notReady = containerStatuses.filter((s: Json) => !s.ready).map((s: Json) => s.name);
  const readyReason = finished ? "PodCompleted" : "ContainersNotReady";
  const readyMessage =
    fate.kind === "started" && blocking < 0 && !isLegacy(health, input.fate)
      ? `containers with unready status: [${notReady.join(" ")}]`
      : undefined;
  const conditions =
    fate.kind === "unschedulable"
      ? [condition("PodScheduled", false, "Unschedulable", fate.message)]
      : [
          condition("PodReadyToStartContainers", !finished && fate.kind !== "mountFailure"),
          blocking >= 0
            ? condition(
                "Initialized",
                false,
                "ContainersNotInitialized",
                `containers with incomplete status: [${initSpecs
                  .slice(blocking)
                  .map((c: Json) => c.name)
                  .join(" ")}]`,
              )
            : condition("Initialized", true),
          condition("Ready", ready, readyReason, readyMessage),
          condition("ContainersReady", ready, readyReason, readyMessage),
          condition("PodScheduled", true),
        ];
  const scheduled = fate.kind !== "unschedulable";
  const hasIp = scheduled && fate.kind !== "mountFailure";
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      ...(template?.metadata?.annotations ? { annotations: { ...template.metadata.annotations } } : {}),
      name,
      namespace,
      labels: { ...(template?.metadata?.labels ?? {}), ...(input.labels ?? {}) },
      ...(input.owner ? { ownerReferences: [input.owner] } : {}),
      creationTimestamp: started,
    },
    spec,
    status: {
      phase,
      conditions,
      ...(scheduled ? { hostIP: SIM_NODE_IP, hostIPs: [{ ip: SIM_NODE_IP }] } : {}),
      ...(hasIp ? { podIP: ip, podIPs: [{ ip }] } : {}),
      ...(scheduled ? { startTime: started } : {}),
      ...(initStatuses.length ? { initContainerStatuses: initStatuses } : {}),
      ...(scheduled ? { containerStatuses } : {}),
      qosClass: qosClassOf([...initSpecs, ...containers]),
    },
  };
}

/** The knob-made states keep the exact shape they always had (tests compare their tables and JSON). */
function isLegacy(health: PodHealth, fate: PodFate | undefined): boolean {
  return fate === undefined || health !== "ready";
}

/** `qosClass` as the API server computes it: Guaranteed, Burstable or BestEffort. */
function qosClassOf(containers: Json[]): string {
  const resources = containers.map((c) => c?.resources ?? {});
  const any = resources.some((r) => Object.keys(r.requests ?? {}).length + Object.keys(r.limits ?? {}).length > 0);
  if (!any) return "BestEffort";
  const guaranteed = resources.every(
    (r) =>
      ["cpu", "memory"].every((k) => r.limits?.[k] !== undefined) &&
      ["cpu", "memory"].every((k) => r.requests?.[k] === undefined || r.requests[k] === r.limits[k]),
  );
  return guaranteed ? "Guaranteed" : "Burstable";
}
