/**
 * The simulated controllers, for clusters started with `controllers: true`: after helm or kubectl writes a
 * workload through the API (Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, or a Pod of its own), what the
 * deployment/replicaset/job controllers, the scheduler and the kubelet would make of it is materialized at once
 * (materialize.ts: ReplicaSets, Pods in the state their spec decides, status, events). A Deployment whose
 * template changed loses its previous ReplicaSets (and so their pods). Off by default: without it, objects
 * written through the API stay as written (the long-standing behaviour tests rely on).
 */
import type { KubeObject } from "./kube/types.ts";

const WORKLOADS = new Set([
  "apps/v1/Deployment",
  "apps/v1/StatefulSet",
  "apps/v1/DaemonSet",
  "apps/v1/ReplicaSet",
  "batch/v1/Job",
  "v1/Pod",
]);

export interface ReconcileTarget {
  materialize(objects: object[], options: { namespace?: string }): KubeObject[];
  list(apiVersion: string, kind: string, namespace?: string): KubeObject[];
  remove(apiVersion: string, kind: string, name: string, namespace?: string): boolean;
}

/** Is this object one a controller acts on (and not one a controller made)? */
export function isReconciled(object: KubeObject): boolean {
  if (!WORKLOADS.has(`${object.apiVersion}/${object.kind}`)) return false;
  // Pods and ReplicaSets with an owner are the controllers' own; their owner is reconciled instead.
  return !(object.metadata?.ownerReferences?.length && (object.kind === "Pod" || object.kind === "ReplicaSet"));
}

/** Materializes a written workload in place, as the controllers would a moment after the write. */
export function reconcile(cluster: ReconcileTarget, written: KubeObject): void {
  if (!isReconciled(written)) return;
  const namespace = written.metadata?.namespace;
  const live = cluster.list(written.apiVersion ?? "", written.kind ?? "", namespace);
  const current = live.find((o) => o.metadata?.name === written.metadata?.name);
  if (!current) return;
  const made = cluster.materialize([current], { namespace });
  if (current.kind !== "Deployment") return;
  const keep = new Set(made.filter((o) => o.kind === "ReplicaSet").map((o) => o.metadata?.name));
  for (const rs of cluster.list("apps/v1", "ReplicaSet", namespace)) {
    const owned = rs.metadata?.ownerReferences?.some((ref) => ref.uid === current.metadata?.uid);
    if (owned && !keep.has(rs.metadata?.name))
      cluster.remove("apps/v1", "ReplicaSet", rs.metadata?.name ?? "", namespace);
  }
}
