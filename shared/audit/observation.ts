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

/** Drifted fields kept per snapshot: a release with thousands must not outgrow the item. */
export const DRIFT_KEPT = 100;

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
    resources,
    missing: report.missing.map((m) => {
      const entry: Observation["missing"][number] = { reason: m.reason };
      if (m.apiVersion) entry.apiVersion = m.apiVersion;
      if (m.kind) entry.kind = m.kind;
      if (m.name) entry.name = m.name;
      if (m.namespace) entry.namespace = m.namespace;
      if (m.message) entry.message = m.message;
      return entry;
    }),
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
