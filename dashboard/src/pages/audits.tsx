/** Recent audit runs: when, how long, how many releases, and what failed. */
import type { AuditRun } from "../../../shared/snapshots/model.ts";
import { getJson, query } from "../api.ts";
import { DataTable } from "../data-table.tsx";
import { duration, when } from "../format.ts";
import { href, type Route } from "../route.ts";
import type { Column } from "../table.ts";
import { Loaded, useLoad } from "../ui.tsx";

const RUN_COLUMNS: Column<AuditRun>[] = [
  { title: "Run", cell: (run) => run.runId },
  { title: "Started", cell: (run) => when(run.startedAt) },
  {
    title: "Duration",
    cell: (run) => (run.durationMs === undefined ? (run.plannedAt ? "running" : "planning") : duration(run.durationMs)),
  },
  { title: "Planned", cell: (run) => run.planned },
  { title: "Done", cell: (run) => run.done },
  { title: "Failed", cell: (run) => run.failed, cellClass: (run) => (run.failed ? "bad" : undefined) },
  { title: "Unhealthy", cell: (run) => run.unhealthy },
  { title: "Changed", cell: (run) => run.changed },
  { title: "Clusters", cell: (run) => run.clusters.join(", ") },
];

export function AuditsPage({ route }: { route: Route }) {
  const cursor = route.query.get("cursor") ?? "";
  const load = useLoad(cursor, () =>
    getJson<{ audits: AuditRun[]; cursor?: string }>(`/audits${query({ limit: 50, cursor })}`),
  );
  return (
    <main>
      <h1>Audits</h1>
      <p class="muted">
        Each run reads every deployed release once; failed counts releases whose cluster could not be read.
      </p>
      <Loaded load={load}>
        {(data) => (
          <>
            <DataTable
              class="runs"
              columns={RUN_COLUMNS}
              rows={data.audits}
              rowKey={(run) => run.runId}
              rowClass={(run) => (run.failed ? "failed-run" : undefined)}
            />
            {data.cursor ? (
              <nav class="pager" aria-label="Pages">
                <a href={href("audits", undefined, { cursor: data.cursor })}>older →</a>
              </nav>
            ) : null}
          </>
        )}
      </Loaded>
    </main>
  );
}
