/** Every release of every cluster the person may see, worst health first; filters and pages in the URL. */
import { useEffect, useState } from "preact/hooks";
import type { FleetRowsPage } from "../../../shared/usecases/fleet-rows.ts";
import { getJson, query } from "../api.ts";
import { DataTable } from "../data-table.tsx";
import { ago } from "../format.ts";
import { href, navigate, type Route } from "../route.ts";
import type { Column } from "../table.ts";
import { ClusterSelect, HEALTHS, Health, Loaded } from "../ui.tsx";

const PAGE = 50;

type Row = FleetRowsPage["releases"][number];

const FLEET_COLUMNS: Column<Row>[] = [
  { title: "Health", cell: (r) => <Health health={r.health} title={r.healthMessage} /> },
  {
    title: "Release",
    cell: (r) => (
      <a href={href("release", r)}>
        <span class="ns">{r.namespace}/</span>
        {r.name}
      </a>
    ),
  },
  { title: "Cluster", cell: (r) => r.cluster },
  {
    title: "Rev",
    cell: (r) => (
      <>
        {r.revision}
        {r.auditedRevision !== undefined && r.auditedRevision !== r.revision ? (
          <span class="stale" title={`the last audit read revision ${r.auditedRevision}`}>
            {" "}
            (audited {r.auditedRevision})
          </span>
        ) : null}
        <Freshness row={r} />
      </>
    ),
  },
  {
    title: "Chart",
    cell: (r) => (
      <>
        {r.chart}
        {r.appVersion ? <span class="muted"> ({r.appVersion})</span> : null}
      </>
    ),
  },
  { title: "Last deployed", cell: (r) => ago(r.lastDeployed), cellTitle: (r) => r.lastDeployed },
  { title: "In this health", cell: (r) => (r.since ? `since ${ago(r.since)}` : ""), cellTitle: (r) => r.since },
  {
    title: "Drift",
    cell: (r) => (r.driftCount ? <span class="drift">{r.driftCount} drifted</span> : r.driftCount === 0 ? "—" : ""),
  },
  { title: "Checked", cell: (r) => ago(r.checkedAt), cellTitle: (r) => r.checkedAt },
];

/**
 * The page's rows first (counts=false: a cold API answers them from the index in a few small reads), then, if
 * they came without counts, the same page with its counts (the whole fleet read; a warm API holds it 30 s).
 * The rows of the previous filters stay shown until the new ones arrive.
 */
function useFleet(key: string, url: (counts: boolean) => string) {
  const [state, setState] = useState<{ key?: string; page?: FleetRowsPage; error?: Error }>({});
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, error: undefined }));
    getJson<FleetRowsPage>(url(false))
      .then(async (page) => {
        if (!live) return;
        setState({ key, page });
        if (page.counts) return;
        // The rows are painted first; then the (slower, on a cold API) counts are asked for.
        await new Promise((painted) => requestAnimationFrame(() => setTimeout(painted)));
        if (!live) return;
        const counted = await getJson<FleetRowsPage>(url(true));
        if (live) setState({ key, page: counted });
      })
      .catch((error: Error) => live && setState((s) => ({ ...s, error })));
    return () => {
      live = false;
    };
  }, [key]);
  return { data: state.page, error: state.error, loading: state.key !== key && !state.error };
}

export function FleetPage({ route, clusters }: { route: Route; clusters: string[] }) {
  const q = route.query;
  const filters = {
    cluster: q.get("cluster") ?? "",
    namespace: q.get("namespace") ?? "",
    health: q.get("health") ?? "",
    q: q.get("q") ?? "",
  };
  const at = Number(q.get("at") ?? 0) || 0;
  const key = JSON.stringify({ ...filters, at });
  const { data, error, loading } = useFleet(
    key,
    (counts) =>
      `/fleet/releases${query({ ...filters, limit: PAGE, cursor: at || undefined, counts: counts ? undefined : "false" })}`,
  );
  const go = (change: Record<string, string | number | undefined>) =>
    navigate(href("fleet", undefined, { ...filters, at: undefined, ...change }));

  return (
    <main>
      <h1>Fleet</h1>
      <form
        class="filters"
        aria-label="Filters"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          go({ q: String(form.get("q") ?? ""), namespace: String(form.get("namespace") ?? "") });
        }}
      >
        <ClusterSelect value={filters.cluster} clusters={clusters} onPick={(cluster) => go({ cluster })} />
        <label>
          Namespace
          <input name="namespace" defaultValue={filters.namespace} placeholder="any" size={12} />
        </label>
        <label>
          Text
          <input name="q" type="search" defaultValue={filters.q} placeholder="name, chart…" size={16} />
        </label>
        <button type="submit">Filter</button>
      </form>
      <nav class="counts" aria-label="Health">
        <a href={href("fleet", undefined, { ...filters, health: undefined })} aria-current={!filters.health}>
          all <b>{data?.counts ? Object.values(data.counts).reduce((a, b) => a + b, 0) : "…"}</b>
        </a>
        {HEALTHS.map((h) => (
          <a key={h} href={href("fleet", undefined, { ...filters, health: h })} aria-current={filters.health === h}>
            <Health health={h} /> <b>{data?.counts?.[h] ?? "…"}</b>
          </a>
        ))}
      </nav>
      <Loaded load={{ data, error, loading }}>
        {(data) => (
          <>
            <DataTable
              class="fleet"
              caption={
                data.total === undefined
                  ? `releases ${at + 1}–${at + data.releases.length} (counting…)`
                  : `${data.total} release${data.total === 1 ? "" : "s"}${data.total > PAGE ? `, ${at + 1}–${Math.min(at + PAGE, data.total)} shown` : ""}`
              }
              columns={FLEET_COLUMNS}
              rows={data.releases}
              rowKey={(r) => `${r.cluster}/${r.namespace}/${r.name}`}
            />
            {at > 0 || data.cursor ? (
              <nav class="pager" aria-label="Pages">
                {at > 0 ? (
                  <a href={href("fleet", undefined, { ...filters, at: Math.max(0, at - PAGE) || undefined })}>
                    ← previous
                  </a>
                ) : null}
                {data.cursor ? <a href={href("fleet", undefined, { ...filters, at: data.cursor })}>next →</a> : null}
              </nav>
            ) : null}
          </>
        )}
      </Loaded>
    </main>
  );
}

/** The stored revision against the cluster's Helm storage at the last audit; nothing when they matched. */
function Freshness({ row }: { row: Row }) {
  const f = row.freshness;
  if (!f || f.state === "matches") return null;
  const checked = row.checkedAt ? ` (checked ${ago(row.checkedAt)})` : "";
  if (f.state === "not-in-cluster") {
    return (
      <span class="stale" title={`the cluster's Helm storage no longer held this release${checked}`}>
        {" "}
        · not in the cluster
      </span>
    );
  }
  if (f.state === "not-checked" || f.clusterRevision === undefined) {
    return (
      <span class="muted" title={`the audit could not read the cluster's Helm storage${checked}`}>
        {" "}
        · not checked
      </span>
    );
  }
  const newer = f.clusterRevision > row.revision;
  return (
    <span
      class="stale"
      title={`the cluster's Helm storage held revision ${f.clusterRevision}${newer ? ": not synced yet" : ""}${checked}`}
    >
      {" "}
      · cluster {f.clusterRevision}
    </span>
  );
}
