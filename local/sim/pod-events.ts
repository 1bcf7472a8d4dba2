/**
 * The Events the scheduler, the kubelet and the Job controller would have recorded for an unhealthy pod (or a
 * failed Job) by `now`: kubelet events in the legacy core/v1 shape (count, firstTimestamp, lastTimestamp), the
 * scheduler's in the events.k8s.io shape (eventTime, series, reportingController), as on a real cluster. Healthy
 * pods get none (their start-up events would have expired after the event TTL anyway).
 */
import { createHash } from "node:crypto";
import { rfc3339 } from "./kube/store.ts";
import type { KubeObject } from "./kube/types.ts";
import { blockingInit, type ContainerFate, type PodFate } from "./pod-fates.ts";
import { lastCrashOf, OWNER_UID_PREFIX, SIM_NODE } from "./pods.ts";

// biome-ignore lint/suspicious/noExplicitAny: generated objects are untyped JSON
type Json = any;

/** Stands for the pod's uid in messages (kubelet's `name_namespace(uid)`) until the pod is stored. */
export const uidPlaceholder = (kind: string, namespace: string, name: string) =>
  `${OWNER_UID_PREFIX}${kind}/${namespace}/${name}`;

const micro = (date: Date) => date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");

interface Involved {
  kind: string;
  apiVersion: string;
  namespace: string;
  name: string;
  fieldPath?: string;
}

function eventName(involved: Involved, reason: string, message: string): string {
  const digest = createHash("sha256").update(
    `${involved.kind}/${involved.name}/${involved.fieldPath}/${reason}/${message}`,
  );
  return `${involved.name}.${digest.digest("hex").slice(0, 16)}`;
}

/** What both recorders write alike: the object's identity and the object it is about (its uid filled in on create). */
function eventOf(involved: Involved, reason: string, message: string, first: Date) {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: {
      name: eventName(involved, reason, message),
      namespace: involved.namespace,
      creationTimestamp: rfc3339(first),
    },
    involvedObject: {
      kind: involved.kind,
      namespace: involved.namespace,
      name: involved.name,
      uid: uidPlaceholder(involved.kind, involved.namespace, involved.name),
      apiVersion: involved.apiVersion,
      ...(involved.fieldPath ? { fieldPath: involved.fieldPath } : {}),
    },
  };
}

/** A legacy (core/v1 recorder) event: what the kubelet and most controllers still write. */
export function legacyEvent(
  involved: Involved,
  type: "Normal" | "Warning",
  reason: string,
  message: string,
  source: { component: string; host?: string },
  times: { first: Date; last: Date; count: number },
): KubeObject {
  const last = new Date(Math.max(times.last.getTime(), times.first.getTime()));
  return {
    ...eventOf(involved, reason, message, times.first),
    reason,
    message,
    source,
    firstTimestamp: rfc3339(times.first),
    lastTimestamp: rfc3339(last),
    count: Math.max(1, times.count),
    type,
    eventTime: null,
    reportingComponent: source.component,
    reportingInstance: source.host ?? "",
  };
}

/** An events.k8s.io event (the scheduler's), as the core/v1 API shows it: eventTime and a series when repeated. */
function seriesEvent(
  involved: Involved,
  type: "Normal" | "Warning",
  reason: string,
  action: string,
  message: string,
  times: { first: Date; last: Date; count: number },
): KubeObject {
  const last = new Date(Math.max(times.last.getTime(), times.first.getTime()));
  return {
    ...eventOf(involved, reason, message, times.first),
    reason,
    message,
    source: {},
    firstTimestamp: null,
    lastTimestamp: null,
    type,
    eventTime: micro(times.first),
    ...(times.count > 1 ? { series: { count: times.count, lastObservedTime: micro(last) } } : {}),
    action,
    reportingComponent: "default-scheduler",
    reportingInstance: `default-scheduler-${SIM_NODE.split(".")[0]}`,
  };
}

/** `nginx:1.29` -> `docker.io/library/nginx:1.29`, as containerd names what it pulls. */
function fullImage(image: string): string {
  const first = image.split("/")[0];
  if (image.includes("/") && (first.includes(".") || first.includes(":") || first === "localhost")) return image;
  return image.includes("/") ? `docker.io/${image}` : `docker.io/library/${image}`;
}

const at = (base: Date, ms: number) => new Date(base.getTime() + ms);

/** How many times something retried every `periodMs` between `from` and `to` (at least once). */
const repeats = (from: Date, to: Date, periodMs: number) =>
  Math.max(1, Math.floor((to.getTime() - from.getTime()) / periodMs) + 1);

/** The events for one pod of a given fate, made `createdAt` and looked at `now`. */
export function podEvents(pod: Json, fate: PodFate, createdAt: Date, now: Date): KubeObject[] {
  const namespace = pod.metadata.namespace;
  const name = pod.metadata.name;
  const involved: Involved = { kind: "Pod", apiVersion: "v1", namespace, name };
  const kubelet = { component: "kubelet", host: SIM_NODE };
  const start = createdAt > now ? now : createdAt;
  if (fate.kind === "unschedulable") {
    return [
      seriesEvent(involved, "Warning", "FailedScheduling", "Scheduling", fate.message, {
        first: start,
        last: now,
        count: repeats(start, now, 5 * 60_000),
      }),
    ];
  }
  const events: KubeObject[] = [
    seriesEvent(
      involved,
      "Normal",
      "Scheduled",
      "Binding",
      `Successfully assigned ${namespace}/${name} to ${SIM_NODE}`,
      {
        first: start,
        last: start,
        count: 1,
      },
    ),
  ];
  if (fate.kind === "mountFailure") {
    events.push(
      legacyEvent(involved, "Warning", "FailedMount", fate.message, kubelet, {
        first: at(start, 1000),
        last: now,
        count: repeats(at(start, 1000), now, 2 * 60_000),
      }),
    );
    return events;
  }
  const spec = pod.spec ?? {};
  const blocking = blockingInit(fate);
  const entries: Array<{ container: Json; fate: ContainerFate; path: string }> = [];
  (spec.initContainers ?? []).forEach((container: Json, i: number) => {
    if (blocking < 0 || i <= blocking)
      entries.push({ container, fate: fate.init[i], path: `spec.initContainers{${container.name}}` });
  });
  if (blocking < 0) {
    (spec.containers ?? []).forEach((container: Json, i: number) => {
      entries.push({ container, fate: fate.containers[i], path: `spec.containers{${container.name}}` });
    });
  }
  const lastCrash = lastCrashOf(createdAt, now);
  for (const { container, fate: containerFate, path } of entries) {
    const unhealthy = containerFate.kind !== "running" || containerFate.failingProbes.length > 0;
    if (!unhealthy) continue;
    const on: Involved = { ...involved, fieldPath: path };
    const image = String(container.image ?? "");
    const first = at(start, 2000);
    const normal = (reason: string, message: string, count: number, last: Date) =>
      legacyEvent(on, "Normal", reason, message, kubelet, { first, last, count });
    const warning = (reason: string, message: string, count: number, last: Date) =>
      legacyEvent(on, "Warning", reason, message, kubelet, { first, last, count });
    const present = `Container image "${image}" already present on machine`;
    switch (containerFate.kind) {
      case "imagePull": {
        const pulls = repeats(first, now, 5 * 60_000);
        const full = fullImage(image);
        events.push(
          normal("Pulling", `Pulling image "${image}"`, pulls, now),
          warning(
            "Failed",
            `Failed to pull image "${image}": rpc error: code = NotFound desc = failed to pull and unpack image "${full}": failed to resolve reference "${full}": ${full}: not found`,
            pulls,
            now,
          ),
          warning("Failed", "Error: ErrImagePull", pulls, now),
          normal("BackOff", `Back-off pulling image "${image}"`, repeats(first, now, 20_000), now),
          warning("Failed", "Error: ImagePullBackOff", repeats(first, now, 20_000), now),
        );
        break;
      }
      case "configError":
        events.push(
          normal("Pulled", present, repeats(first, now, 60_000), now),
          warning("Failed", `Error: ${containerFate.message}`, repeats(first, now, 60_000), now),
        );
        break;
      case "crash":
        events.push(
          normal("Pulled", present, 6, lastCrash.startedAt),
          normal("Created", `Created container: ${container.name}`, 6, lastCrash.startedAt),
          normal("Started", `Started container ${container.name}`, 6, lastCrash.startedAt),
          warning(
            "BackOff",
            `Back-off restarting failed container ${container.name} in pod ${name}_${namespace}(${uidPlaceholder("Pod", namespace, name)})`,
            12,
            now,
          ),
        );
        break;
      default: {
        const liveness = containerFate.failingProbes.includes("liveness");
        const restarts = liveness ? 3 : 0;
        events.push(
          normal("Pulled", present, restarts + 1, liveness ? lastCrash.finishedAt : first),
          normal(
            "Created",
            `Created container: ${container.name}`,
            restarts + 1,
            liveness ? lastCrash.finishedAt : first,
          ),
          normal(
            "Started",
            `Started container ${container.name}`,
            restarts + 1,
            liveness ? lastCrash.finishedAt : first,
          ),
        );
        for (const probe of containerFate.failingProbes) {
          const definition = probe === "readiness" ? container.readinessProbe : container.livenessProbe;
          const label = probe === "readiness" ? "Readiness" : "Liveness";
          events.push(
            warning(
              "Unhealthy",
              `${label} probe failed: ${probeFailure(definition, pod)}`,
              repeats(first, now, 10_000),
              now,
            ),
          );
        }
        if (liveness) {
          events.push(
            normal(
              "Killing",
              `Container ${container.name} failed liveness probe, will be restarted`,
              restarts,
              lastCrash.finishedAt,
            ),
          );
        }
      }
    }
  }
  return events;
}

/** The kubelet's words for a failed probe: an HTTP status, or a refused connection. */
function probeFailure(probe: Json, pod: Json): string {
  if (probe?.httpGet) return "HTTP probe failed with statuscode: 503";
  const port = probe?.tcpSocket?.port ?? 8080;
  const ip = pod.status?.podIP ?? "10.0.0.1";
  if (probe?.tcpSocket) return `dial tcp ${ip}:${port}: connect: connection refused`;
  if (probe?.exec) return "command failed: exit status 1";
  return "HTTP probe failed with statuscode: 503";
}

/** The Job controller's event for a Job that ran out of retries. */
export function failedJobEvent(job: Json, createdAt: Date): KubeObject {
  return legacyEvent(
    { kind: "Job", apiVersion: "batch/v1", namespace: job.metadata.namespace, name: job.metadata.name },
    "Warning",
    "BackoffLimitExceeded",
    "Job has reached the specified backoff limit",
    { component: "job-controller" },
    { first: at(createdAt, 7000), last: at(createdAt, 7000), count: 1 },
  );
}
