/**
 * A status report (or the error that prevented one) reduced to what the history
 * keeps: per resource its health and key cells, the MISSING entries, counters,
 * and the full text as `helm status` printed it.
 */

import type { DriftReport } from "../drift/types.ts";
import type { ReleaseKey, ReleaseSummary } from "../release/model.ts";
import { renderStatusText } from "../render/status/text.ts";
import type { Observation, SnapshotDrift, SnapshotResource } from "../snapshots/model.ts";
import type { StatusReport } from "../status/report.ts";
import type { Cause } from "../why/causes.ts";

/** Drifted fields kept per snapshot: a release with thousands must not outgrow the item. */
export const DRIFT_KEPT = 100;

/**
 * Bytes of resource and MISSING entries (as JSON) kept per snapshot. DynamoDB items are at most 400 KB and the
 * body item holds the resources beside the status text (up to TEXT_BUDGET_BYTES, 300 KB gzip), the summary item
 * their brief form beside the MISSING list: a release of ~20,000 resources (issue #39 item 9) must not outgrow
 * either, or its audit fails every delivery. Past the budget the rest are counted (`resourcesTotal`,
 * `missingTotal`), the unhealthy ones kept first.
 */
/** Cause chains kept per snapshot (each a few hundred bytes): why it was failing, long after the events expired. */
export const CAUSES_KEPT_IN_SNAPSHOT = 10;
/** Events kept per snapshot (folded, Warning first): kube-apiserver drops them after an hour, the history does not. */
export const EVENTS_KEPT_IN_SNAPSHOT = 10;

export const RESOURCES_KEPT_BYTES = 48 * 1024;
export const MISSING_KEPT_BYTES = 24 * 1024;

/** Columns that say how a resource is doing; ages, IPs and ports do not. */
export const KEY_COLUMNS = new Set([
  "READY",
  "STATUS",
  "UP-TO-DATE",
  "AVAILABLE",
  "DESIRED",
  "CURRENT",
  "COMPLETIONS",
  "RESTARTS",
  "SUSPEND",
  "ACTIVE",
  "PHASE",
  "EXTERNAL-IP",
  "ADDRESS",
]);

/**
 * What the history keeps of a report. The audits read every object of the release; when some are outside its
 * namespace (docs/security.md "What each caller sees"), the parts every reader of the release sees (the health
 * verdict, drift) are those of the release's own namespace (`report.ownNamespaceView`), so the fleet, the timeline
 * and the reliability figures never answer for another namespace's objects; the resources and the missing entries
 * keep everything (each read filters them by the reader's grants: snapshots/visible.ts), and `ownText` is the
 * status text as a caller granted only the release's namespace sees it.
 */
export function observationFromReport(report: StatusReport, runId: string, observedAt: string): Observation {
  const shared = report.ownNamespaceView ?? report;
  const release: ReleaseKey = {
    cluster: report.cluster,
    namespace: report.release.namespace,
    name: report.release.name,
  };
  const healthByResource = new Map(
    report.health.resources.map((h) => [`${h.apiVersion}|${h.kind}|${h.namespace ?? ""}|${h.name}`, h]),
  );
  const resources: SnapshotResource[] = report.resources.map((entry) => {
    const health = healthByResource.get(`${entry.apiVersion}|${entry.kind}|${entry.namespace ?? ""}|${entry.name}`);
    const cells: Record<string, string> = {};
    const row = entry.rows[0] ?? [];
    entry.columns.forEach((column, i) => {
      if (column.priority === 0 && KEY_COLUMNS.has(column.name.toUpperCase()) && row[i] !== undefined) {
        cells[column.name.toUpperCase()] = String(row[i]);
      }
    });
    const resource: SnapshotResource = {
      apiVersion: entry.apiVersion,
      kind: entry.kind,
      name: entry.name,
      health: health?.status ?? entry.health.status,
      message: health?.message ?? entry.health.message,
      cells,
    };
    if (entry.namespace) resource.namespace = entry.namespace;
    return resource;
  });
  return {
    release,
    runId,
    observedAt,
    revision: report.release.version,
    releaseStatus: report.release.info.status,
    health: { overall: shared.health.overall, message: shared.health.message },
    ...bounded("resources", resources, RESOURCES_KEPT_BYTES, (r) => r.health !== "Current"),
    ...bounded(
      "missing",
      report.missing.map((m) => {
        const entry: Observation["missing"][number] = { reason: m.reason };
        if (m.apiVersion) entry.apiVersion = m.apiVersion;
        if (m.kind) entry.kind = m.kind;
        if (m.name) entry.name = m.name;
        if (m.namespace) entry.namespace = m.namespace;
        if (m.message) entry.message = m.message;
        return entry;
      }),
      MISSING_KEPT_BYTES,
      () => true,
    ),
    counters: {
      resources: report.resources.length,
      missing: report.missing.length,
      requests: report.counters.requests,
      retries: report.counters.retries,
      durationMs: report.counters.durationMs,
    },
    text: renderStatusText(report),
    ...(report.ownNamespaceView ? { ownText: renderStatusText(report.ownNamespaceView) } : {}),
    ...(shared.drift ? driftOf(shared.drift) : {}),
    ...(report.freshness ? { freshness: storedFreshness(report.freshness) } : {}),
    // Why, as every reader of the release may see it: its own namespace's causes and events.
    ...(shared.causes?.length ? { causes: shared.causes.slice(0, CAUSES_KEPT_IN_SNAPSHOT).map(keptCause) } : {}),
    ...(shared.events?.items.length ? { events: shared.events.items.slice(0, EVENTS_KEPT_IN_SNAPSHOT) } : {}),
  };
}

/**
 * The entries of one list that fit `budget` bytes of JSON, those `first` picks ahead of the rest, each group in
 * report order (so the same report keeps the same entries); `<name>Total` says how many there were when cut.
 */
type Bounded<N extends string, T> = Record<N, T[]> & Partial<Record<`${N}Total`, number>>;

function bounded<N extends "resources" | "missing", T>(
  name: N,
  entries: T[],
  budget: number,
  first: (entry: T) => boolean,
): Bounded<N, T> {
  let bytes = 2;
  for (const entry of entries) bytes += JSON.stringify(entry).length + 1;
  if (bytes <= budget) return { [name]: entries } as Bounded<N, T>;
  const kept: T[] = [];
  bytes = 2;
  for (const entry of [...entries.filter(first), ...entries.filter((e) => !first(e))]) {
    const size = JSON.stringify(entry).length + 1;
    if (bytes + size > budget) break;
    kept.push(entry);
    bytes += size;
  }
  return { [name]: kept, [`${name}Total`]: entries.length } as Bounded<N, T>;
}

/**
 * A cause as the history keeps it: its chain (the text) and what its digest reads (the containers' reasons and exit
 * codes); not its event (the snapshot's `events` has it), a log excerpt (never kept: not every reader may see logs)
 * or kubelet's waiting messages and the conditions' messages (the text has what matters): the snapshot of the demo's Failed api stays within 2x.
 */
function keptCause(cause: Cause): Cause {
  const { event: _event, log: _log, conditions, ...kept } = cause;
  return {
    ...kept,
    // The conditions' messages are in the chain (the text): their kinds, types and reasons are kept.
    ...(conditions ? { conditions: conditions.map(({ message: _message, ...condition }) => condition) } : {}),
    pods: cause.pods.map((pod) => ({
      ...pod,
      containers: pod.containers.map(({ waiting, ...container }) =>
        waiting ? { ...container, waiting: { reason: waiting.reason } } : container,
      ),
    })),
  };
}

function driftOf(drift: DriftReport): Pick<Observation, "drift" | "driftTotal"> {
  const kept = drift.fields.slice(0, DRIFT_KEPT).map((f) => {
    const entry: SnapshotDrift = {
      apiVersion: f.apiVersion,
      kind: f.kind,
      name: f.name,
      field: f.field,
      live: f.live,
      conflicts: f.conflicts,
    };
    if (f.namespace) entry.namespace = f.namespace;
    if (f.release !== undefined) entry.release = f.release;
    if (f.changedBy) entry.changedBy = f.changedBy;
    if (f.subresource) entry.subresource = f.subresource;
    if (f.changedAt) entry.changedAt = f.changedAt;
    if (f.benign) entry.benign = f.benign;
    return entry;
  });
  return drift.fields.length > DRIFT_KEPT ? { drift: kept, driftTotal: drift.fields.length } : { drift: kept };
}

function storedFreshness(freshness: NonNullable<StatusReport["freshness"]>): NonNullable<Observation["freshness"]> {
  return freshness.clusterRevision === undefined
    ? { state: freshness.state }
    : { state: freshness.state, clusterRevision: freshness.clusterRevision };
}

/** A cluster that could not be read: one Unknown snapshot saying why, instead of failing the batch. */
export function observationFromError(
  release: ReleaseSummary,
  runId: string,
  observedAt: string,
  error: unknown,
): Observation {
  const message = firstLine(error instanceof Error ? error.message : String(error));
  return {
    release: { cluster: release.cluster, namespace: release.namespace, name: release.name },
    runId,
    observedAt,
    revision: release.revision,
    releaseStatus: release.status,
    health: { overall: "Unknown", message: `cluster not read: ${message}` },
    resources: [],
    missing: [],
    counters: { resources: 0, missing: 0, requests: 0, retries: 0, durationMs: 0 },
    error: message,
    text:
      `NAME: ${release.name}\nNAMESPACE: ${release.namespace}\nSTATUS: ${release.status}\nREVISION: ${release.revision}\n` +
      `HEALTH: Unknown (cluster not read: ${message})\n`,
  };
}

function firstLine(text: string): string {
  const line = text.split("\n")[0] ?? "";
  return line.length > 500 ? `${line.slice(0, 497)}...` : line;
}
