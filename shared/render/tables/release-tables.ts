/** `helm list` and `helm history` output (table, JSON, YAML) from stored metadata, Helm's shapes and formatting. */
import type { ChartMetadata, ReleaseMetadata, ReleaseSummary } from "../../release/model.ts";
import { type OutputFormat, renderStructured } from "../index.ts";
import { formatGoLayout } from "../time/go-layout.ts";
import { formatAnsiC, formatGoTime, isZeroTime, ZERO_TIME } from "../time/helm-time.ts";
import { uiTable } from "./columns.ts";

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
}

/** Oldest first, as `helm history` prints. */
export function helmHistoryElements(revisions: ReleaseMetadata[]): HelmHistoryElement[] {
  return [...revisions]
    .sort((a, b) => a.version - b.version)
    .map((r) => ({
      revision: r.version,
      updated: r.info?.last_deployed ?? ZERO_TIME,
      status: r.info?.status ?? "unknown",
      chart: chartName(r.chart?.metadata),
      app_version: appVersion(r.chart?.metadata),
      description: r.info?.description ?? "",
    }));
}

export function renderHelmHistory(revisions: ReleaseMetadata[]): string {
  const header = ["REVISION", "UPDATED", "STATUS", "CHART", "APP VERSION", "DESCRIPTION"];
  const rows = helmHistoryElements(revisions).map((e) => [
    String(e.revision),
    formatAnsiC(e.updated),
    e.status,
    e.chart,
    e.app_version,
    e.description,
  ]);
  return uiTable([header, ...rows]);
}
