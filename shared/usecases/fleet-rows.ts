/**
 * The fleet's rows (shared/usecases/fleet.ts): their shape, the healths in worst-first order, how a release
 * summary and its latest audited health make a row, and the drift counts of rows whose index entry lacks one.
 */
import type { HealthStatus } from "../health/index.ts";
import type { ReleaseKey, ReleaseSummary } from "../release/model.ts";
import { driftCountOf, type FleetEntry, HEALTH_SEVERITY, type StoredFreshness } from "../snapshots/model.ts";
import type { SnapshotStore } from "../snapshots/snapshot-store.ts";

/** A release's health, or `NotAudited` when no audit has seen it yet. */
export type FleetHealth = HealthStatus | "NotAudited";
export const FLEET_HEALTHS: readonly FleetHealth[] = [
  "Failed",
  "Unknown",
  "NotFound",
  "Terminating",
  "InProgress",
  "Current",
  "NotAudited",
];
export const SEVERITY: Record<FleetHealth, number> = { ...HEALTH_SEVERITY, NotAudited: 6 };

export interface FleetRow {
  cluster: string;
  namespace: string;
  name: string;
  /** The latest stored revision and its Helm status. */
  revision: number;
  status: string;
  chart?: string;
  appVersion?: string;
  lastDeployed?: string;
  health: FleetHealth;
  healthMessage?: string;
  /** Since when the release has looked like this (its latest snapshot's first audit). */
  since?: string;
  /** When an audit last read it: how fresh `health` is. */
  checkedAt?: string;
  /** The revision the audit read; differs from `revision` when a newer one was stored since. */
  auditedRevision?: number;
  snapshotId?: string;
  /** Fields changed behind Helm's back at the last audit. */
  driftCount?: number;
  /**
   * The stored revision against the cluster's Helm storage at the last audit (`checkedAt`): `matches`, or the
   * cluster had `clusterRevision` (newer: not synced yet; 0: the release is gone from the cluster).
   */
  freshness?: StoredFreshness;
}

export interface FleetPage {
  releases: FleetRow[];
  /** Releases per health among those matching every filter but `health`. */
  counts: Record<FleetHealth, number>;
  /** Releases matching every filter. */
  total: number;
  cursor?: string;
}

/** A page asked for without its counts (`counts: false`), when they would cost a read of the whole fleet. */
export type FleetRowsPage = Omit<FleetPage, "counts" | "total"> & Partial<Pick<FleetPage, "counts" | "total">>;

const DRIFT_READS_AT_ONCE = 16;

export function rowOf(release: ReleaseSummary, entry: FleetEntry | undefined): FleetRow {
  const row: FleetRow = {
    cluster: release.cluster,
    namespace: release.namespace,
    name: release.name,
    revision: release.revision,
    status: release.status,
    health: entry?.health.overall ?? "NotAudited",
  };
  if (release.chart) {
    row.chart = `${release.chart.name}-${release.chart.version}`;
    if (release.chart.appVersion) row.appVersion = release.chart.appVersion;
  }
  if (release.updated) row.lastDeployed = release.updated;
  if (entry) {
    row.healthMessage = entry.health.message;
    row.since = entry.since;
    row.checkedAt = entry.lastSeenAt;
    row.auditedRevision = entry.revision;
    row.snapshotId = entry.snapshotId;
    if (entry.driftCount !== undefined) row.driftCount = entry.driftCount;
    if (entry.freshness) row.freshness = { ...entry.freshness };
  }
  return row;
}

export function emptyCounts(): Record<FleetHealth, number> {
  return Object.fromEntries(FLEET_HEALTHS.map((h) => [h, 0])) as Record<FleetHealth, number>;
}

/** Worst health first, then cluster, namespace, name (the FLEET index's own order within a health). */
export function compareRows(a: FleetRow, b: FleetRow): number {
  return (
    SEVERITY[a.health] - SEVERITY[b.health] ||
    compare(a.cluster, b.cluster) ||
    compare(a.namespace, b.namespace) ||
    compare(a.name, b.name)
  );
}

/**
 * Drift counts of audited rows that lack one: written before the index carried the count, so read from each
 * release's latest snapshot (one small Query each, a few at a time). Rows from a current index read none.
 */
export async function addMissingDriftCounts(snapshots: SnapshotStore, rows: FleetRow[]): Promise<void> {
  const missing = rows.filter((row) => row.snapshotId && row.driftCount === undefined);
  for (let i = 0; i < missing.length; i += DRIFT_READS_AT_ONCE) {
    await Promise.all(
      missing.slice(i, i + DRIFT_READS_AT_ONCE).map(async (row) => {
        const latest = await snapshots.latest(row);
        if (latest) row.driftCount = driftCountOf(latest);
      }),
    );
  }
}

/** Kubernetes names are ASCII: code-unit order, without localeCompare's cost over 10,000 rows. */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
export const keyOf = (r: ReleaseKey) => `${r.cluster}/${r.namespace}/${r.name}`;
