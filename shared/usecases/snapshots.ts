/**
 * Reading the status history (API and CLI): a release's snapshots, one snapshot
 * (with the status text as it was), the diff of two, the fleet's latest health,
 * and audit runs. Every read checks the cluster against the registry first.
 */

import { createTwoFilesPatch } from "diff";
import { namespaceAccess } from "../clusters/namespace-access.ts";
import { type ClusterScope, inScope, releaseInScope, requireKnownCluster } from "../clusters/scope.ts";
import { HEALTH_STATUSES, type HealthStatus } from "../health/index.ts";
import { parseCalendarTime } from "../input/calendar-time.ts";
import type { Clock } from "../ports.ts";
import type { ReleaseKey } from "../release/model.ts";
import type { AuditRunStore } from "../snapshots/audit-run-store.ts";
import { changesBetween } from "../snapshots/changes.ts";
import { AuditRunNotFoundError, InvalidHistoryQueryError, SnapshotNotFoundError } from "../snapshots/errors.ts";
import {
  type AuditRun,
  type Change,
  type FleetEntry,
  isRunId,
  parseSnapshotId,
  type Snapshot,
} from "../snapshots/model.ts";
import type { SnapshotStore } from "../snapshots/snapshot-store.ts";
import { type OutsideAccess, type VisibleSnapshot, visibleSnapshot } from "../snapshots/visible.ts";
import type { Page, PageRequest } from "../store/release-store.ts";
import type { AttributionStore, Audience } from "../who/attribution.ts";
import { readShownAttributions, type ShownWho } from "../who/shown.ts";

export interface HistoryDeps {
  snapshots: SnapshotStore;
  clusters: ClusterScope;
  clock: Clock;
}

/** What the audit runs' reads need: the runs, and the scope that narrows the clusters each one names. */
export interface AuditRunsDeps {
  auditRuns: AuditRunStore;
  clusters: ClusterScope;
}

/** The documented JSON of one snapshot in a listing (the API's list route and `snapshots -o json`). */
export interface SnapshotSummary {
  id: string;
  firstSeenAt: string;
  lastSeenAt: string;
  seenCount: number;
  revision: number;
  releaseStatus: string;
  health: { overall: HealthStatus; message: string };
  missing: Snapshot["missing"];
  changes: Change[];
  error?: string;
  /** Objects of the release left out for this reader (namespaces their access does not cover): a count only. */
  outsideAccess?: OutsideAccess;
}

/** A snapshot as the caller may see it: filtered by their grants on namespaces other than the release's. */
export function forCaller<T extends Snapshot>(scope: ClusterScope, snapshot: T): VisibleSnapshot<T> {
  const { cluster, namespace } = snapshot.release;
  return visibleSnapshot(snapshot, namespaceAccess(scope, cluster, namespace));
}

export function summaryOf(snapshot: VisibleSnapshot<Snapshot>): SnapshotSummary {
  const summary: SnapshotSummary = {
    id: snapshot.id,
    firstSeenAt: snapshot.firstSeenAt,
    lastSeenAt: snapshot.lastSeenAt,
    seenCount: snapshot.seenCount,
    revision: snapshot.revision,
    releaseStatus: snapshot.releaseStatus,
    health: { overall: snapshot.health.overall, message: snapshot.health.message },
    missing: snapshot.missing,
    changes: snapshot.changes,
  };
  if (snapshot.error !== undefined) summary.error = snapshot.error;
  if (snapshot.outsideAccess) summary.outsideAccess = snapshot.outsideAccess;
  return summary;
}

/** The full document of `snapshots show` / GET .../snapshots/{id} (without the text, which ?output=table gives). */
export function detailOf(snapshot: VisibleSnapshot<Snapshot>) {
  return {
    ...summaryOf(snapshot),
    release: snapshot.release,
    runId: snapshot.runId,
    lastRunId: snapshot.lastRunId,
    previousId: snapshot.previousId,
    resources: snapshot.resources,
    counters: snapshot.counters,
    textTruncated: snapshot.textTruncated ?? false,
  };
}

const DURATION = /^(\d{1,6})(s|m|h|d)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `--since`/`?since=`: RFC 3339 (2026-12-02T10:00:00Z) or a duration before now (30m, 6h, 7d). */
export function parseTime(name: string, value: string | undefined, now: Date): Date | undefined {
  if (value === undefined || value === "") return undefined;
  const duration = DURATION.exec(value);
  if (duration) return new Date(now.getTime() - Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS]);
  const at = parseCalendarTime(value);
  if (at) return at;
  throw new InvalidHistoryQueryError(
    `${name} ${JSON.stringify(value.slice(0, 60))} is not a time: use RFC 3339 (2026-12-02T10:00:00Z; a date the calendar has) or a duration ago (30m, 6h, 7d)`,
  );
}

export async function listSnapshots(
  deps: HistoryDeps,
  key: ReleaseKey,
  request: { since?: string; until?: string } & PageRequest,
): Promise<{ snapshots: SnapshotSummary[]; cursor?: string }> {
  const release = releaseInScope(deps.clusters, key);
  const now = deps.clock.now();
  const since = parseTime("since", request.since, now);
  const until = parseTime("until", request.until, now);
  if (since && until && since > until) {
    throw new InvalidHistoryQueryError(`since (${since.toISOString()}) is after until (${until.toISOString()})`);
  }
  const page = await deps.snapshots.list(release, { since, until, limit: request.limit, cursor: request.cursor }, now);
  return {
    snapshots: page.items.map((snapshot) => summaryOf(forCaller(deps.clusters, snapshot))),
    ...(page.cursor ? { cursor: page.cursor } : {}),
  };
}

/** One snapshot by id, as the caller may see it; `release`, when given (the API path), must be the id's own. */
export async function showSnapshot(
  deps: HistoryDeps,
  id: string,
  release?: ReleaseKey,
): Promise<VisibleSnapshot<Snapshot>> {
  const parsed = parseSnapshotId(id);
  requireKnownCluster(deps.clusters, parsed.release.cluster, parsed.release.namespace);
  if (
    release &&
    (release.cluster !== parsed.release.cluster ||
      release.namespace !== parsed.release.namespace ||
      release.name !== parsed.release.name)
  ) {
    throw new SnapshotNotFoundError(id);
  }
  return forCaller(deps.clusters, await deps.snapshots.get(id, deps.clock.now()));
}

export interface SnapshotDiff {
  from: string;
  to: string;
  changes: Change[];
  /** The two status texts as a unified diff. */
  diff: string;
  /** Who made the revision the diff arrives at, when the revision changed and the audit log said (docs/who.md). */
  revisionBy?: { revision: number; who: ShownWho };
}

/** A diff's reader of attributions: the store, and who reads the answer (default "public": no ARN). */
export interface DiffAttributions {
  attributions?: AttributionStore;
  audience?: Audience;
}

/** `to` against `from` (default: the snapshot before `to`). */
export async function diffSnapshots(
  deps: HistoryDeps & DiffAttributions,
  toId: string,
  fromId?: string,
  release?: ReleaseKey,
): Promise<SnapshotDiff> {
  const to = await showSnapshot(deps, toId, release);
  const againstId = fromId ?? to.previousId;
  if (!againstId) {
    throw new InvalidHistoryQueryError(`snapshot ${toId} is the first of its release: name another to diff against`);
  }
  const from = await showSnapshot(deps, againstId);
  const changes = changesBetween(from, to);
  const diff = createTwoFilesPatch(from.id, to.id, from.text ?? "", to.text ?? "", from.firstSeenAt, to.firstSeenAt);
  const revisionBy = await revisionAuthor(deps, to, changes);
  return { from: from.id, to: to.id, changes, diff, ...(revisionBy ? { revisionBy } : {}) };
}

/** Who created the revision a diff arrives at, read only when the diff crosses a revision change. */
async function revisionAuthor(
  deps: DiffAttributions,
  to: Snapshot,
  changes: readonly Change[],
): Promise<SnapshotDiff["revisionBy"]> {
  if (!deps.attributions || !changes.some((change) => change.kind === "revision")) return undefined;
  // The release's revisions' attributions only: the diff names no drift write, nor whether the cluster's logging is off.
  const shown = await readShownAttributions(deps.attributions, to.release, deps.audience ?? "public", undefined, {
    clusterLogging: false,
    only: "revision",
  });
  const who = shown.revisions.get(to.revision);
  return who && { revision: to.revision, who };
}

export function parseHealthList(value: string | undefined): HealthStatus[] | undefined {
  if (value === undefined || value === "") return undefined;
  const list = value.split(",").map((item) => item.trim());
  for (const item of list) {
    if (!(HEALTH_STATUSES as readonly string[]).includes(item)) {
      throw new InvalidHistoryQueryError(
        `health ${JSON.stringify(item.slice(0, 40))} is not one of ${HEALTH_STATUSES.join(", ")}`,
      );
    }
  }
  return list as HealthStatus[];
}

export async function fleetHealth(
  deps: HistoryDeps,
  request: { health?: string; cluster?: string } & PageRequest,
): Promise<Page<FleetEntry>> {
  const health = parseHealthList(request.health);
  if (request.cluster !== undefined) requireKnownCluster(deps.clusters, request.cluster);
  const page = await deps.snapshots.fleet(
    { health, cluster: request.cluster, limit: request.limit, cursor: request.cursor },
    deps.clock.now(),
  );
  // Releases of clusters outside the registry are not shown (the registry is the product's scope).
  return {
    ...page,
    items: page.items.filter((entry) => inScope(deps.clusters, entry.release.cluster, entry.release.namespace)),
  };
}

/** Audit runs; their cluster lists name only the clusters in scope (the totals are the run's, fleet-wide). */
export async function listAudits(deps: AuditRunsDeps, page: PageRequest): Promise<Page<AuditRun>> {
  const runs = await deps.auditRuns.listRuns(page);
  return { ...runs, items: runs.items.map((run) => visibleRun(deps.clusters, run)) };
}

export async function getAudit(deps: AuditRunsDeps, runId: string): Promise<AuditRun> {
  if (!isRunId(runId)) throw new AuditRunNotFoundError(String(runId).slice(0, 60));
  return visibleRun(deps.clusters, await deps.auditRuns.getRun(runId));
}

function visibleRun(scope: ClusterScope, run: AuditRun): AuditRun {
  return scope === "any" ? run : { ...run, clusters: run.clusters.filter((cluster) => inScope(scope, cluster)) };
}
