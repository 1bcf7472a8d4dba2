/**
 * The reliability figures of the range a timeline shows: the same report the CLI's `reliability`, chat's
 * `/helm reliability` and GET .../reliability give (shared/usecases/reliability.ts), so every place that shows the
 * history shows the same numbers. A gap is never counted as healthy: coverage says how much the audits saw.
 */
// Types only (erased from the bundle): the report documents the API's reliability routes answer with.
import type { ReleaseReliabilityReport, ReliabilityFigures } from "../../shared/usecases/reliability.ts";
import type { ScopeReliabilityReport } from "../../shared/usecases/reliability-scope.ts";
import { getJson, query } from "./api.ts";
import { duration } from "./format.ts";
import { Fields, Problem, useLoad } from "./ui.tsx";

/** What this view reads of either report document: a release's (with its SLO) or a scope's (with its count). */
type ReliabilityReport = ReliabilityFigures &
  Pick<ReleaseReliabilityReport, "notes" | "slo"> &
  Partial<Pick<ScopeReliabilityReport, "releases">>;

/** A share as the CLI prints it: 3 decimals near 100% (where SLOs live), 1 elsewhere. */
function share(value: number | null | undefined): string {
  if (value === null || value === undefined) return "-";
  const percent = value * 100;
  return `${percent >= 99 && percent < 100 ? percent.toFixed(3) : percent.toFixed(1)}%`;
}

const time = (ms: number | null) => (ms === null ? "-" : duration(ms));

/** `path` is the report's route (a release's `…/reliability` or `/fleet/reliability`); `range` the timeline's. */
export function ReliabilitySummary({ path, range, cluster }: { path: string; range: string; cluster?: string }) {
  const { data, error } = useLoad(`${path}~${range}~${cluster ?? ""}`, () =>
    getJson<ReliabilityReport>(`${path}${query({ since: range, cluster })}`),
  );
  if (error) return <Problem error={error} />;
  if (!data) return null;
  const rows: [string, string, string?][] = [
    ["Availability", share(data.availability), "time in Current over the time the audits covered"],
    ["Coverage", share(data.coverage), "share of the range the audits observed"],
    [
      "Incidents",
      `${data.incidents.count}${data.incidents.open ? ` (${data.incidents.open} open)` : ""}`,
      "entries into Failed or Unknown, or a long InProgress",
    ],
    ["MTTR", time(data.mttrMs), "mean time to recover"],
    ["MTBF", time(data.mtbfMs), "time in Current per incident"],
    ["Flaps", String(data.flaps)],
    ["Deploys", `${data.deploys.count}${data.deploys.failed ? ` (${data.deploys.failed} failed)` : ""}`],
    ["Change failure rate", share(data.changeFailureRate)],
  ];
  if (data.slo) {
    rows.push([
      "SLO",
      `${share(data.slo.objective)}${data.slo.source === "registry" ? " (registry)" : ""}: ${share(
        data.slo.budgetRemaining,
      )} of the budget left (${data.slo.state})`,
    ]);
  }
  return (
    <section class="reliability" aria-label={`Reliability over ${range}`}>
      <h3>Reliability over {range}</h3>
      <Fields fields={data.releases === undefined ? rows : [...rows, ["Releases", String(data.releases)]]} />
      {data.notes.slice(0, 3).map((note) => (
        <p key={note} class="muted">
          {note}
        </p>
      ))}
    </section>
  );
}
