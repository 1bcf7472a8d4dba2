/**
 * The reliability report as text lines, one rendering for the CLI's table output and chat (Slack code block,
 * Teams), so every surface shows the same numbers from the same use case.
 */
import { alignLines, formatCell } from "../render/tables/kubectl-printer.ts";
import type { ReleaseReliabilityReport, ReliabilityFigures } from "./reliability.ts";
import type { ScopeReliabilityReport } from "./reliability-scope.ts";

/** 9_720_000 -> "2h42m"; a day or more as "3d4h"; under a minute as seconds. */
export function formatDuration(ms: number | null): string {
  if (ms === null) return "-";
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h}h${m % 60}m` : `${h}h`;
  return h % 24 ? `${Math.floor(h / 24)}d${h % 24}h` : `${Math.floor(h / 24)}d`;
}

/** A share as a percentage: 3 decimals near 100% (where SLOs live), 1 elsewhere; "-" when undefined. */
export function formatShare(share: number | null): string {
  if (share === null) return "-";
  const pct = share * 100;
  return `${pct >= 99 && pct < 100 ? pct.toFixed(3) : pct.toFixed(1)}%`;
}

const when = (iso: string) => iso.replace("T", " ").replace(/:\d\d(\.\d+)?Z$/, "Z");

function figureLines(subject: [string, string], window: ReleaseReliabilityReport["window"], f: ReliabilityFigures) {
  const observed =
    window.observedSince !== window.since || window.observedUntil !== window.until
      ? ` (answered for ${when(window.observedSince)} .. ${when(window.observedUntil)})`
      : "";
  const health = Object.entries(f.timeInHealthMs)
    .filter(([, ms]) => ms > 0)
    .map(([h, ms]) => `${h} ${formatDuration(ms)}`)
    .join(", ");
  return alignLines([
    subject,
    ["WINDOW", `${when(window.since)} .. ${when(window.until)}${observed}`],
    ["COVERAGE", `${formatShare(f.coverage)} of the window observed by the audits (${formatDuration(f.coveredMs)})`],
    ["AVAILABILITY", `${formatShare(f.availability)} of the covered time Current`],
    ["TIME IN HEALTH", health || "-"],
    [
      "INCIDENTS",
      `${f.incidents.count} (${f.incidents.recovered} recovered, ${f.incidents.open} open)   MTTR ${formatDuration(f.mttrMs)}   MTBF ${formatDuration(f.mtbfMs)}`,
    ],
    ["FLAPS", String(f.flaps)],
    [
      "DEPLOYS",
      `${f.deploys.count} (${f.deploys.failed} failed, ${f.deploys.pending} pending)   CHANGE FAILURE RATE ${formatShare(f.changeFailureRate)}`,
    ],
  ]);
}

export function releaseReliabilityText(report: ReleaseReliabilityReport): string {
  const { cluster, namespace, name } = report.release;
  let out = figureLines(["RELEASE", `${namespace}/${name} on ${cluster}`], report.window, report);
  if (report.slo) {
    const { objective, budgetRemaining, burnRates, state, source } = report.slo;
    const burns = Object.entries(burnRates)
      .map(([w, rate]) => `${w} ${rate === null ? "-" : rate.toFixed(1)}`)
      .join(", ");
    out += alignLines([
      [
        "SLO",
        `${formatShare(objective)}${source === "registry" ? " (registry)" : ""}: ${formatShare(budgetRemaining)} of the error budget left; burn ${burns} (${state})`,
      ],
    ]);
  }
  for (const note of report.notes) out += `NOTE: ${note}\n`;
  if (report.incidentList.length > 0) {
    const rows = report.incidentList.map((i) => [
      when(i.start),
      i.end ? when(i.end) : "(open)",
      formatDuration(i.durationMs ?? null),
      i.worst + (i.acrossGap ? " (across a gap)" : ""),
      i.snapshotId,
      formatCell(i.cause ?? ""),
    ]);
    out += `\n${alignLines([["INCIDENT START", "END", "DURATION", "WORST", "SNAPSHOT", "WHY"], ...rows])}`;
  }
  return out;
}

export function scopeReliabilityText(report: ScopeReliabilityReport): string {
  const { cluster, namespace, chart } = report.scope;
  const parts = [cluster && `cluster ${cluster}`, namespace && `namespace ${namespace}`, chart && `chart ${chart}`];
  const subject = `${parts.filter(Boolean).join(", ") || "the fleet"}: ${report.releases} audited release${report.releases === 1 ? "" : "s"}`;
  let out = figureLines(["SCOPE", subject], report.window, report);
  for (const note of report.notes) out += `NOTE: ${note}\n`;
  if (report.worst.length > 0) {
    const rows = report.worst.map((r) => [
      r.release.cluster,
      `${r.release.namespace}/${r.release.name}`,
      formatShare(r.availability),
      formatShare(r.coverage),
      String(r.incidents),
      String(r.flaps),
      String(r.deploys),
    ]);
    out += `\n${alignLines([["CLUSTER", "RELEASE", "AVAILABILITY", "COVERAGE", "INCIDENTS", "FLAPS", "DEPLOYS"], ...rows])}`;
  }
  return out;
}
