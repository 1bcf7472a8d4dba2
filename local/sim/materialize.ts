import { autoscalerConditions, pastProgressDeadline } from "./controller-conditions.ts";
import { rfc3339 } from "./kube/store.ts";
import type { KubeObject } from "./kube/types.ts";
import { hashSuffix } from "./names.ts";
import { failedJobEvent, podEvents } from "./pod-events.ts";
import { type Exists, isUnhealthy, type PodFate, podFate } from "./pod-fates.ts";
import { fateOf, OWNER_UID_PREFIX, type PodHealth, podFor } from "./pods.ts";
import { settleStatus } from "./settled-status.ts";

export interface MaterializeOptions {
  /** Namespace for objects that name none (default "default"). */
  namespace?: string;
  /** Workload (or bare Pod) names whose pods are in CrashLoopBackOff with restarts; Jobs with these names fail. */
  crashLoop?: string[];
  /** Workload names whose pods are stuck in ImagePullBackOff. */
  imagePullBackOff?: string[];
  /** LoadBalancer Services / Ingresses that never get an address (`<pending>`). */
  pendingLoadBalancer?: string[];
  /** Objects "deleted out of band": not created at all. Entries are `name` or `Kind/name`. */
  omit?: string[];
  /** creationTimestamp of every object made (default: the server clock's now), so AGE cells are deterministic. */
  createdAt?: Date;
  /** AWS region used in load balancer host names (default us-east-1). */
  region?: string;
}

export { OWNER_UID_PREFIX } from "./pods.ts";

const CLUSTER_SCOPED = new Set([
  "Namespace",
  "CustomResourceDefinition",
  "ClusterRole",
  "ClusterRoleBinding",
  "PersistentVolume",
  "StorageClass",
  "IngressClass",
  "PriorityClass",
  "Node",
  "MutatingWebhookConfiguration",
  "ValidatingWebhookConfiguration",
  "APIService",
]);

// biome-ignore lint/suspicious/noExplicitAny: generated objects are untyped JSON
type Json = any;

function ownerRef(owner: Json): Json {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name,
    uid: `${OWNER_UID_PREFIX}${owner.kind}/${owner.metadata.namespace ?? ""}/${owner.metadata.name}`,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/**
 * What the controllers would have made of a rendered manifest a while after install:
 * Deployments with a ReplicaSet and Ready Pods, StatefulSets/DaemonSets with Pods,
 * Jobs complete, Services with a load balancer, PVCs bound, test-hook Pods completed;
 * the knobs turn chosen workloads unhealthy or leave objects out.
 */
export function materialize(
  input: KubeObject[],
  options: MaterializeOptions & { now: Date; exists?: Exists },
): KubeObject[] {
  const createdAt = options.createdAt ?? options.now;
  const stamp = rfc3339(createdAt);
  const region = options.region ?? "us-east-1";
  const omitted = new Set(options.omit ?? []);
  const kept = input.filter(
    (o) => !omitted.has(o.metadata?.name ?? "") && !omitted.has(`${o.kind}/${o.metadata?.name}`),
  );
  // A ConfigMap or Secret exists when this manifest makes it or the cluster already has it.
  const made = new Set(
    kept.map((o) => `${o.kind}/${o.metadata?.namespace ?? options.namespace ?? "default"}/${o.metadata?.name}`),
  );
  const exists: Exists = (kind, namespace, name) =>
    made.has(`${kind}/${namespace}/${name}`) || Boolean(options.exists?.(kind, namespace, name));
  const knob = (name: string): PodHealth =>
    options.crashLoop?.includes(name) ? "crashLoop" : options.imagePullBackOff?.includes(name) ? "imagePull" : "ready";
  const out: Json[] = [];
  /** Events go last: their involved objects must exist first (the cluster fills in the uids). */
  const events: Json[] = [];
  const ordered = [...kept].sort((a, b) => rank(a) - rank(b));
  for (const original of ordered) {
    const o: Json = structuredClone(original);
    o.metadata.creationTimestamp ??= stamp;
    if (!CLUSTER_SCOPED.has(o.kind)) o.metadata.namespace ??= options.namespace ?? "default";
    const ns = o.metadata.namespace;
    /** A workload's pods are unhealthy when a knob says so or when their spec makes them so (pod-fates.ts). */
    const health = (name: string, template?: Json): PodHealth => {
      const forced = knob(name);
      if (forced !== "ready" || !template) return forced;
      return isUnhealthy(podFate(template.spec, ns, exists)) ? "crashLoop" : "ready";
    };
    const pod = (name: string, template: Json, owner: Json | undefined, state: PodHealth, extra: Json = {}) => {
      const byKnob = knob(o.metadata.name) !== "ready";
      const finished = state === "succeeded" || state === "failed";
      const fate = finished || byKnob ? undefined : podFate(template?.spec, ns, exists);
      const podObject = podFor({
        name,
        namespace: ns,
        template,
        owner: owner && ownerRef(owner),
        health: byKnob ? state : finished ? state : "ready",
        fate,
        createdAt,
        now: options.now,
        ...extra,
      });
      const effective = finished ? undefined : (fate ?? fateOf(state, podObject.spec));
      if (effective && isUnhealthy(effective)) events.push(...podEvents(podObject, effective, createdAt, options.now));
      return podObject;
    };
    out.push(o);
    const key = `${o.apiVersion}/${o.kind}`;
    switch (key) {
      case "apps/v1/Deployment": {
        const replicas = o.spec?.replicas ?? 1;
        const hash = hashSuffix(JSON.stringify(o.spec?.template ?? {}), 10);
        const rsName = `${o.metadata.name}-${hash}`;
        const labels = { ...(o.spec?.template?.metadata?.labels ?? {}), "pod-template-hash": hash };
        const state = health(o.metadata.name, o.spec?.template);
        const ready = state === "ready" ? replicas : 0;
        const rs: Json = {
          apiVersion: "apps/v1",
          kind: "ReplicaSet",
          metadata: {
            name: rsName,
            namespace: ns,
            labels,
            annotations: {
              "deployment.kubernetes.io/desired-replicas": String(replicas),
              "deployment.kubernetes.io/max-replicas": String(replicas + Math.ceil(replicas / 4)),
              "deployment.kubernetes.io/revision": "1",
            },
            ownerReferences: [ownerRef(o)],
            creationTimestamp: stamp,
          },
          spec: {
            replicas,
            selector: { matchLabels: { ...(o.spec?.selector?.matchLabels ?? {}), "pod-template-hash": hash } },
            template: { ...o.spec?.template, metadata: { ...o.spec?.template?.metadata, labels } },
          },
          status: {
            replicas,
            fullyLabeledReplicas: replicas,
            observedGeneration: 1,
            ...(ready ? { readyReplicas: ready, availableReplicas: ready } : {}),
          },
        };
        o.status = workloadStatus(replicas, ready, stamp, rsName);
        if (!ready) pastProgressDeadline(o, rsName, createdAt, options.now);
        out.push(rs);
        for (let i = 0; i < replicas; i++) {
          out.push(pod(`${rsName}-${hashSuffix(`${rsName}/${i}`, 5)}`, rs.spec.template, rs, state));
        }
        break;
      }
      case "apps/v1/StatefulSet": {
        const replicas = o.spec?.replicas ?? 1;
        const revision = `${o.metadata.name}-${hashSuffix(JSON.stringify(o.spec?.template ?? {}), 10)}`;
        const state = health(o.metadata.name, o.spec?.template);
        const ready = state === "ready" ? replicas : 0;
        o.status = {
          observedGeneration: 1,
          replicas,
          currentReplicas: replicas,
          updatedReplicas: replicas,
          currentRevision: revision,
          updateRevision: revision,
          collisionCount: 0,
          ...(ready ? { readyReplicas: ready, availableReplicas: ready } : { availableReplicas: 0 }),
        };
        for (let i = 0; i < replicas; i++) {
          const name = `${o.metadata.name}-${i}`;
          out.push(
            pod(name, o.spec?.template, o, state, {
              labels: {
                "controller-revision-hash": revision,
                "statefulset.kubernetes.io/pod-name": name,
                "apps.kubernetes.io/pod-index": String(i),
              },
            }),
          );
        }
        break;
      }
      case "apps/v1/DaemonSet": {
        const state = health(o.metadata.name, o.spec?.template);
        const ready = state === "ready" ? 1 : 0;
        o.status = {
          currentNumberScheduled: 1,
          desiredNumberScheduled: 1,
          numberMisscheduled: 0,
          numberReady: ready,
          updatedNumberScheduled: 1,
          numberAvailable: ready,
          ...(ready ? {} : { numberUnavailable: 1 }),
          observedGeneration: 1,
        };
        out.push(pod(`${o.metadata.name}-${hashSuffix(o.metadata.name, 5)}`, o.spec?.template, o, state));
        break;
      }
      case "apps/v1/ReplicaSet": {
        const replicas = o.spec?.replicas ?? 1;
        const state = health(o.metadata.name, o.spec?.template);
        const ready = state === "ready" ? replicas : 0;
        o.status = {
          replicas,
          fullyLabeledReplicas: replicas,
          observedGeneration: 1,
          ...(ready ? { readyReplicas: ready, availableReplicas: ready } : {}),
        };
        for (let i = 0; i < replicas; i++) {
          out.push(pod(`${o.metadata.name}-${hashSuffix(`${o.metadata.name}/${i}`, 5)}`, o.spec?.template, o, state));
        }
        break;
      }
      case "batch/v1/Job": {
        const failed = knob(o.metadata.name) !== "ready" || crashes(podFate(o.spec?.template?.spec, ns, exists));
        out.push(
          ...jobState(o, failed, createdAt, (name, template, owner, state, extra) =>
            pod(name, template, owner, state, extra),
          ),
        );
        if (failed) events.push(failedJobEvent(o, createdAt));
        break;
      }
      case "v1/Pod": {
        const hook = String(o.metadata.annotations?.["helm.sh/hook"] ?? "");
        const state: PodHealth =
          hook.split(",").includes("test") && knob(o.metadata.name) === "ready" ? "succeeded" : knob(o.metadata.name);
        const made = pod(o.metadata.name, { metadata: o.metadata, spec: o.spec }, undefined, state);
        o.spec = made.spec;
        o.status = made.status;
        break;
      }
      default:
        settleStatus(o, ns, region, options.pendingLoadBalancer ?? []);
    }
  }
  autoscalerConditions(out, stamp);
  return [...out, ...events];
}

/** Does a Job's pod exit non-zero (so the Job runs out of retries)? */
function crashes(fate: PodFate): boolean {
  return fate.kind === "started" && [...fate.init, ...fate.containers].some((c) => c.kind === "crash");
}

/** Namespaces and CRDs first, so the objects that need them can be created. */
function rank(object: KubeObject): number {
  if (object.kind === "Namespace") return 0;
  if (object.kind === "CustomResourceDefinition") return 1;
  return 2;
}

function workloadStatus(replicas: number, ready: number, stamp: string, rsName: string): Json {
  const healthy = ready >= replicas;
  return {
    observedGeneration: 1,
    replicas,
    updatedReplicas: replicas,
    ...(ready ? { readyReplicas: ready, availableReplicas: ready } : {}),
    ...(healthy ? {} : { unavailableReplicas: replicas - ready }),
    conditions: [
      {
        type: "Available",
        status: healthy ? "True" : "False",
        reason: healthy ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable",
        message: healthy ? "Deployment has minimum availability." : "Deployment does not have minimum availability.",
        lastUpdateTime: stamp,
        lastTransitionTime: stamp,
      },
      {
        type: "Progressing",
        status: "True",
        reason: healthy ? "NewReplicaSetAvailable" : "ReplicaSetUpdated",
        message: healthy
          ? `ReplicaSet "${rsName}" has successfully progressed.`
          : `ReplicaSet "${rsName}" is progressing.`,
        lastUpdateTime: stamp,
        lastTransitionTime: stamp,
      },
    ],
  };
}

function jobState(
  job: Json,
  failed: boolean,
  createdAt: Date,
  pod: (name: string, template: Json, owner: Json, state: PodHealth, extra: Json) => Json,
): Json[] {
  const completions = job.spec?.completions ?? 1;
  const start = rfc3339(createdAt);
  const end = rfc3339(new Date(createdAt.getTime() + 7_000));
  const labels = { "batch.kubernetes.io/job-name": job.metadata.name, "job-name": job.metadata.name };
  if (failed) {
    const backoff = job.spec?.backoffLimit ?? 6;
    job.status = {
      startTime: start,
      failed: backoff + 1,
      ready: 0,
      terminating: 0,
      uncountedTerminatedPods: {},
      conditions: [
        {
          type: "FailureTarget",
          status: "True",
          reason: "BackoffLimitExceeded",
          message: "Job has reached the specified backoff limit",
          lastProbeTime: end,
          lastTransitionTime: end,
        },
        {
          type: "Failed",
          status: "True",
          reason: "BackoffLimitExceeded",
          message: "Job has reached the specified backoff limit",
          lastProbeTime: end,
          lastTransitionTime: end,
        },
      ],
    };
    return [
      pod(`${job.metadata.name}-${hashSuffix(`${job.metadata.name}/0`, 5)}`, job.spec?.template, job, "failed", {
        labels,
      }),
    ];
  }
  job.status = {
    startTime: start,
    completionTime: end,
    succeeded: completions,
    ready: 0,
    terminating: 0,
    uncountedTerminatedPods: {},
    conditions: [
      {
        type: "SuccessCriteriaMet",
        status: "True",
        reason: "CompletionsReached",
        message: "Reached expected number of succeeded pods",
        lastProbeTime: end,
        lastTransitionTime: end,
      },
      {
        type: "Complete",
        status: "True",
        reason: "CompletionsReached",
        message: "Reached expected number of succeeded pods",
        lastProbeTime: end,
        lastTransitionTime: end,
      },
    ],
  };
  const pods: Json[] = [];
  for (let i = 0; i < completions; i++) {
    pods.push(
      pod(`${job.metadata.name}-${hashSuffix(`${job.metadata.name}/${i}`, 5)}`, job.spec?.template, job, "succeeded", {
        labels,
      }),
    );
  }
  return pods;
}
