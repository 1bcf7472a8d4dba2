/** `helm list` and `helm history` output (table, JSON, YAML) from stored metadata, Helm's shapes and formatting. */
import type { ChartMetadata, ReleaseMetadata, ReleaseSummary } from "../../release/model.ts";
import type { ShownWho } from "../../who/shown.ts";
import { type OutputFormat, renderStructured } from "../index.ts";
import { formatGoLayout } from "../time/go-layout.ts";
import { formatAnsiC, formatGoTime, isZeroTime, ZERO_TIME } from "../time/helm-time.ts";
import { uiTable } from "./columns.ts";
import { formatCell } from "./kubectl-printer.ts";

/** Helm's formatChartname / formatAppVersion: "MISSING" when the chart is gone. */
const chartName = (chart?: ChartMetadata) => (chart ? `${chart.name}-${chart.version}` : "MISSING");
const appVersion = (chart?: ChartMetadata) => (chart ? (chart.appVersion ?? "") : "MISSING");

export interface HelmListElement {
  name: string;
  namespace: string;
  revision: string;
  updated: string;
  status: string;
  chart: string;
  app_version: string;
}

/** helm list's presentation flags: -q, --no-headers (table only), --time-format (a Go layout). */
export interface HelmListPresentation {
  short?: boolean;
  noHeaders?: boolean;
  timeFormat?: string;
}

/** `helm list` in any output format: -q prints names (a list in JSON/YAML), else the table or the elements. */
export function renderHelmListAs(
  summaries: ReleaseSummary[],
  format: OutputFormat,
  presentation: HelmListPresentation = {},
): string {
  if (presentation.short) {
    const names = summaries.map((s) => s.name);
    return format === "table" ? names.map((n) => `${n}\n`).join("") : renderStructured(names, format);
  }
  if (format !== "table") return renderStructured(helmListElements(summaries, presentation.timeFormat), format);
  return renderHelmList(summaries, presentation);
}

export function helmListElements(summaries: ReleaseSummary[], timeFormat = ""): HelmListElement[] {
  const updated = (value: string) => (timeFormat ? formatGoLayout(value, timeFormat) : formatGoTime(value));
  return summaries.map((s) => ({
    name: s.name,
    namespace: s.namespace,
    revision: String(s.revision),
    updated: s.updated && !isZeroTime(s.updated) ? updated(s.updated) : "-",
    status: s.status,
    chart: chartName(s.chart),
    app_version: appVersion(s.chart),
  }));
}

export function renderHelmList(summaries: ReleaseSummary[], presentation: HelmListPresentation = {}): string {
  const header = ["NAME", "NAMESPACE", "REVISION", "UPDATED", "STATUS", "CHART", "APP VERSION"];
  const rows = helmListElements(summaries, presentation.timeFormat).map((e) => [
    e.name,
    e.namespace,
    e.revision,
    e.updated,
    e.status,
    e.chart,
    e.app_version,
  ]);
  return uiTable(presentation.noHeaders ? rows : [header, ...rows]);
}

export interface HelmHistoryElement {
  revision: number;
  updated: string;
  status: string;
  chart: string;
  app_version: string;
  description: string;
  /** Who created the revision, from the EKS audit log (docs/who.md); absent when nothing is kept for it. */
  who?: ShownWho;
}

/** A revision as history renders it: its metadata (never its values) and who created it when known. */
export type HistoryRevision = Omit<ReleaseMetadata, "config"> & { who?: ShownWho };

/** Oldest first, as `helm history` prints. */
export function helmHistoryElements(revisions: readonly HistoryRevision[]): HelmHistoryElement[] {
  return [...revisions]
    .sort((a, b) => a.version - b.version)
    .map((r) => ({
      revision: r.version,
      updated: r.info?.last_deployed ?? ZERO_TIME,
      status: r.info?.status ?? "unknown",
      chart: chartName(r.chart?.metadata),
      app_version: appVersion(r.chart?.metadata),
      description: r.info?.description ?? "",
      ...(r.who ? { who: r.who } : {}),
    }));
}

export interface HelmHistoryPresentation {
  /** A WHO column after Helm's six (`--who`, `?who=true`); without it the table is Helm's, byte for byte. */
  who?: boolean;
  /** With `who`: `audit logs are off for <cluster>: ...`, said once under the table. */
  auditLogging?: string;
}

export function renderHelmHistory(
  revisions: readonly HistoryRevision[],
  presentation: HelmHistoryPresentation = {},
): string {
  const header = ["REVISION", "UPDATED", "STATUS", "CHART", "APP VERSION", "DESCRIPTION"];
  const rows = helmHistoryElements(revisions).map((e) => [
    String(e.revision),
    formatAnsiC(e.updated),
    e.status,
    e.chart,
    e.app_version,
    e.description,
    ...(presentation.who ? [whoCell(e.who)] : []),
  ]);
  const table = uiTable([presentation.who ? [...header, "WHO"] : header, ...rows]);
  return presentation.who && presentation.auditLogging ? `${table}${formatCell(presentation.auditLogging)}\n` : table;
}

/**
 * The WHO cell: the person (and the role they assumed), or why nobody is named; one line, controls defused (an
 * identity is data: a newline or ESC in a session name must not drive the reader's terminal).
 */
function whoCell(who: ShownWho | undefined): string {
  if (!who) return "-";
  if (who.state !== "found") return formatCell(`(${who.note})`);
  return formatCell(who.role ? `${who.name} (${who.role})` : who.name);
}
