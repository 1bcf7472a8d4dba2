/**
 * What both SnapshotStore implementations must agree on, so the contract suite holds for both: the scope a
 * cursor is bound to (a cursor from another listing is refused), the fleet's order (worst health first, then
 * the release), a run's duration, and what counts as a later sighting of a snapshot.
 */
import { createHash } from "node:crypto";
import { ValidationError } from "../errors.ts";
import type { ReleaseKey } from "../release/model.ts";
import { type AuditRun, type FleetEntry, HEALTH_SEVERITY, type Snapshot } from "./model.ts";
import {
  FLEET_CLUSTERS_MAX,
  type FleetFilter,
  type FleetScopeFilter,
  type SeenAgain,
  type SnapshotQuery,
} from "./snapshot-store.ts";

const releaseId = (r: ReleaseKey) => `${r.cluster}#${r.namespace}#${r.name}`;

export function listScope(release: ReleaseKey, query: SnapshotQuery): string {
  return `${releaseId(release)}|${query.since?.toISOString() ?? ""}|${query.until?.toISOString() ?? ""}`;
}

export function fleetScope(filter: FleetFilter): string {
  // A digest of the clusters: a registry of 1,000 names would make a cursor of 100 KB.
  const clusters = filter.clusters
    ? `|c=${createHash("sha256")
        .update([...filter.clusters].sort().join(","))
        .digest("base64url")
        .slice(0, 22)}`
    : "";
  const namespace = filter.namespace ? `|ns=${filter.namespace}` : "";
  return `${filter.cluster ?? ""}|${[...(filter.health ?? [])].sort().join(",")}${namespace}${clusters}`;
}

/** Whether a fleet entry is one `filter` asks for (health aside): the memory store's rule, DynamoDB's Query. */
export function inFleetFilter(release: ReleaseKey, filter: FleetScopeFilter): boolean {
  return (
    (!filter.cluster || release.cluster === filter.cluster) &&
    (!filter.namespace || release.namespace === filter.namespace) &&
    (!filter.clusters || clusterSet(filter.clusters).has(release.cluster))
  );
}

const clusterSets = new WeakMap<readonly string[], Set<string>>();
/** A filter's clusters as a set, made once per list (1,000 clusters x 50,000 entries is no list scan each). */
export function clusterSet(clusters: readonly string[]): Set<string> {
  let set = clusterSets.get(clusters);
  if (!set) {
    set = new Set(clusters);
    clusterSets.set(clusters, set);
  }
  return set;
}

/** The fleet's filters are checked before any read: a clear error instead of a refused Query. */
export function checkFleetFilter(filter: FleetScopeFilter): void {
  if (filter.clusters && filter.clusters.length > FLEET_CLUSTERS_MAX) {
    throw new ValidationError(
      `at most ${FLEET_CLUSTERS_MAX} clusters per fleet read (${filter.clusters.length} asked)`,
      "TooManyClusters",
    );
  }
}

export function fleetOrder(entry: FleetEntry): string {
  return `${HEALTH_SEVERITY[entry.health.overall]}#${releaseId(entry.release)}`;
}

export function durationOf(run: AuditRun): number | undefined {
  return run.lastDoneAt ? Date.parse(run.lastDoneAt) - Date.parse(run.startedAt) : undefined;
}

/**
 * The store-side condition of an extend: another run (a redelivery of the same one changes nothing) that
 * observed later, by the workers' clocks. Not "a greater run id": one run id from the future would then refuse
 * every later extend and freeze the release (issue #25 item 2).
 */
export function isLaterSighting(latest: Pick<Snapshot, "lastRunId" | "lastSeenAt">, seen: SeenAgain): boolean {
  return latest.lastRunId !== seen.runId && latest.lastSeenAt < seen.observedAt;
}
