/** The fleet over time: how many releases (of those the person may see) were Failed, InProgress, Unknown. */
import type { FleetTimeline } from "../../../shared/usecases/timeline.ts";
import { getJson, query } from "../api.ts";
import { DEFAULT_RANGE, RANGES } from "../format.ts";
import { ReliabilitySummary } from "../reliability.tsx";
import { href, navigate, type Route } from "../route.ts";
import { FleetTimelineChart } from "../timeline-chart.tsx";
import { ClusterSelect, Loaded, useLoad } from "../ui.tsx";

export function RangePicker({ value, link }: { value: string; link: (range: string) => string }) {
  return (
    <nav class="ranges" aria-label="Time range">
      {RANGES.map((r) => (
        <a key={r} href={link(r)} aria-current={r === value}>
          {r}
        </a>
      ))}
    </nav>
  );
}

export function TimelinePage({ route, clusters }: { route: Route; clusters: string[] }) {
  const range = route.query.get("range") ?? DEFAULT_RANGE;
  const cluster = route.query.get("cluster") ?? "";
  const load = useLoad(`${range}/${cluster}`, () =>
    getJson<FleetTimeline>(`/fleet/timeline${query({ since: range, cluster })}`),
  );
  return (
    <main>
      <h1>Fleet timeline</h1>
      <div class="filters">
        <ClusterSelect
          value={cluster}
          clusters={clusters}
          onPick={(picked) => navigate(href("timeline", undefined, { range, cluster: picked }))}
        />
        <RangePicker value={range} link={(r) => href("timeline", undefined, { range: r, cluster })} />
      </div>
      <Loaded load={load}>
        {(data) => (
          <>
            <FleetTimelineChart buckets={data.buckets} counts={data.counts} until={data.until} />
            <p class="muted">
              {data.releases} audited release{data.releases === 1 ? "" : "s"}
              {data.truncated ? " (the first 1,000 by health; narrow by cluster for the rest)" : ""}.
            </p>
          </>
        )}
      </Loaded>
      <ReliabilitySummary path="/fleet/reliability" range={range} cluster={cluster || undefined} />
    </main>
  );
}
