import { createHash } from "node:crypto";
import { rfc3339 } from "./kube/store.ts";

export type PodHealth = "ready" | "crashLoop" | "imagePull" | "succeeded" | "failed";

// biome-ignore lint/suspicious/noExplicitAny: generated objects are untyped JSON
type Json = any;

export const SIM_NODE = "ip-10-0-1-23.ec2.internal";

/** How long ago the last crash of a CrashLoopBackOff pod finished, so RESTARTS reads "5 (2m14s ago)". */
const LAST_CRASH_AGO_MS = 134_000;

/**
 * The last crash of a CrashLoopBackOff container: LAST_CRASH_AGO_MS before now, but never before
 * the pod was created (a pod made "just now" cannot have crashed 2 minutes ago), nor after now.
 */
function lastCrashOf(createdAt: Date, now: Date): { startedAt: Date; finishedAt: Date } {
  const created = Math.min(createdAt.getTime(), now.getTime());
  const finishedAt = Math.max(now.getTime() - LAST_CRASH_AGO_MS, created);
  return { startedAt: new Date(Math.max(finishedAt - 1000, created)), finishedAt: new Date(finishedAt) };
}

function podIp(namespace: string, name: string): string {
  const digest = createHash("sha256").update(`${namespace}/${name}`).digest();
  return `10.0.${(digest[0] % 254) + 1}.${(digest[1] % 254) + 1}`;
}

const containerId = (seed: string) => `containerd://${createHash("sha256").update(seed).digest("hex")}`;

/** A Pod as the kubelet would report it, from a pod template, in one of a few health states. */
export function podFor(input: {
  name: string;
  namespace: string;
  template: Json;
  owner?: Json;
  health: PodHealth;
  createdAt: Date;
  now: Date;
  labels?: Record<string, string>;
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
  const containers: Json[] = spec.containers ?? [];
  const ip = podIp(namespace, name);
  const ready = health === "ready";
  const condition = (type: string, status: boolean, reason?: string) => ({
    type,
    status: status ? "True" : "False",
    lastProbeTime: null,
    lastTransitionTime: started,
    ...(reason && !status ? { reason } : {}),
  });
  const finished = health === "succeeded" || health === "failed";
  const lastCrash = lastCrashOf(createdAt, now);
  const statusOf = (container: Json, index: number): Json => {
    const base = {
      name: container.name,
      image: container.image,
      imageID:
        health === "imagePull"
          ? ""
          : `docker.io/library/${String(container.image).split(":")[0]}@sha256:${createHash("sha256").update(String(container.image)).digest("hex")}`,
      ...(health === "imagePull" ? {} : { containerID: containerId(`${namespace}/${name}/${index}`) }),
    };
    switch (health) {
      case "ready":
        return {
          ...base,
          ready: true,
          started: true,
          restartCount: 0,
          state: { running: { startedAt: started } },
          lastState: {},
        };
      case "crashLoop":
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
          lastState: {
            terminated: {
              exitCode: 1,
              reason: "Error",
              startedAt: rfc3339(lastCrash.startedAt),
              finishedAt: rfc3339(lastCrash.finishedAt),
              containerID: containerId(`${namespace}/${name}/${index}/previous`),
            },
          },
        };
      case "imagePull":
        return {
          ...base,
          ready: false,
          started: false,
          restartCount: 0,
          state: { waiting: { reason: "ImagePullBackOff", message: `Back-off pulling image "${container.image}"` } },
          lastState: {},
        };
      default: {
        const exitCode = health === "succeeded" ? 0 : 1;
        return {
          ...base,
          ready: false,
          started: false,
          restartCount: 0,
          state: {
            terminated: {
              exitCode,
              reason: exitCode === 0 ? "Completed" : "Error",
              startedAt: started,
              finishedAt: rfc3339(new Date(createdAt.getTime() + 7_000)),
              containerID: base.containerID,
            },
          },
          lastState: {},
        };
      }
    }
  };
  if (finished && spec.restartPolicy === "Always") spec.restartPolicy = "Never";
  const initStatuses = (spec.initContainers ?? []).map((c: Json, i: number) => ({
    name: c.name,
    image: c.image,
    imageID: "",
    containerID: containerId(`${namespace}/${name}/init/${i}`),
    ready: true,
    started: false,
    restartCount: 0,
    state: { terminated: { exitCode: 0, reason: "Completed", startedAt: started, finishedAt: started } },
    lastState: {},
  }));
  const phase =
    health === "succeeded"
      ? "Succeeded"
      : health === "failed"
        ? "Failed"
        : health === "imagePull"
          ? "Pending"
          : "Running";
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
      conditions: [
        condition("PodReadyToStartContainers", !finished),
        condition("Initialized", true),
        condition("Ready", ready, finished ? "PodCompleted" : "ContainersNotReady"),
        condition("ContainersReady", ready, finished ? "PodCompleted" : "ContainersNotReady"),
        condition("PodScheduled", true),
      ],
      hostIP: "10.0.1.23",
      hostIPs: [{ ip: "10.0.1.23" }],
      podIP: ip,
      podIPs: [{ ip }],
      startTime: started,
      ...(initStatuses.length ? { initContainerStatuses: initStatuses } : {}),
      containerStatuses: containers.map(statusOf),
      qosClass: "BestEffort",
    },
  };
}
