/**
 * What both SnapshotStore implementations must agree on, so the contract suite holds for both: the scope a
 * cursor is bound to (a cursor from another listing is refused), the fleet's order (worst health first, then
 * the release), and a run's duration.
 */
import type { ReleaseKey } from "../release/model.ts";
import { type AuditRun, type FleetEntry, HEALTH_SEVERITY } from "./model.ts";
import type { FleetFilter, SnapshotQuery } from "./snapshot-store.ts";

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
