/**
 * What both SnapshotStore implementations must agree on, so the contract suite holds for both: the scope a
 * cursor is bound to (a cursor from another listing is refused), the fleet's order (worst health first, then
 * the release), a run's duration, and what counts as a later sighting of a snapshot.
 */
import type { ReleaseKey } from "../release/model.ts";
import { type AuditRun, type FleetEntry, HEALTH_SEVERITY, type Snapshot } from "./model.ts";
import type { FleetFilter, SeenAgain, SnapshotQuery } from "./snapshot-store.ts";

const releaseId = (r: ReleaseKey) => `${r.cluster}#${r.namespace}#${r.name}`;

export function listScope(release: ReleaseKey, query: SnapshotQuery): string {
  return `${releaseId(release)}|${query.since?.toISOString() ?? ""}|${query.until?.toISOString() ?? ""}`;
}

export function fleetScope(filter: FleetFilter): string {
  return `${filter.cluster ?? ""}|${[...(filter.health ?? [])].sort().join(",")}`;
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
