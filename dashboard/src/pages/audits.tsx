/** Recent audit runs: when, how long, how many releases, and what failed. */
import type { AuditRun } from "../../../shared/snapshots/model.ts";
import { getJson, query } from "../api.ts";
import { duration, when } from "../format.ts";
import { href, type Route } from "../route.ts";
import { Loading, Problem, useLoad } from "../ui.tsx";

export function AuditsPage({ route }: { route: Route }) {
  const cursor = route.query.get("cursor") ?? "";
  const { data, error, loading } = useLoad(cursor, () =>
    getJson<{ audits: AuditRun[]; cursor?: string }>(`/audits${query({ limit: 50, cursor })}`),
  );
  return (
    <main>
      <h1>Audits</h1>
      <p class="muted">
        Each run reads every deployed release once; failed counts releases whose cluster could not be read.
      </p>
      <Problem error={error} />
      <Loading when={loading && !data} />
      {data && (
        <div class="scroll">
          <table class="runs">
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Started</th>
                <th scope="col">Duration</th>
                <th scope="col">Planned</th>
                <th scope="col">Done</th>
                <th scope="col">Failed</th>
                <th scope="col">Unhealthy</th>
                <th scope="col">Changed</th>
                <th scope="col">Clusters</th>
              </tr>
            </thead>
            <tbody>
              {data.audits.map((run) => (
                <tr key={run.runId} class={run.failed ? "failed-run" : undefined}>
                  <td>{run.runId}</td>
                  <td>{when(run.startedAt)}</td>
                  <td>
                    {run.durationMs === undefined ? (run.plannedAt ? "running" : "planning") : duration(run.durationMs)}
                  </td>
                  <td>{run.planned}</td>
                  <td>{run.done}</td>
                  <td class={run.failed ? "bad" : undefined}>{run.failed}</td>
                  <td>{run.unhealthy}</td>
                  <td>{run.changed}</td>
                  <td>{run.clusters.join(", ")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data?.cursor ? (
        <nav class="pager" aria-label="Pages">
          <a href={href("audits", undefined, { cursor: data.cursor })}>older →</a>
        </nav>
      ) : null}
    </main>
  );
}
