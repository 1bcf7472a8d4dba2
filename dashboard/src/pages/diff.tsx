/** Two snapshots of a release (two points on its timeline) and what changed between them. */
import type { SnapshotDiff, SnapshotSummary } from "../../../shared/usecases/snapshots.ts";
import { getJson, query, releasePath } from "../api.ts";
import { DataTable } from "../data-table.tsx";
import { when } from "../format.ts";
import { href, navigate, type Route } from "../route.ts";
import type { Column } from "../table.ts";
import { Health, Loading, Problem, Section, useLoad } from "../ui.tsx";
import { whoText, whoTitle } from "../who.ts";

type Change = SnapshotDiff["changes"][number];

/** A change's value: a health as its badge, anything else as text. */
const value = (c: Change, v: unknown) => (c.kind === "health" ? <Health health={String(v)} /> : String(v ?? ""));

const CHANGE_COLUMNS: Column<Change>[] = [
  { title: "Change", cell: (c) => c.kind },
  { title: "Subject", cell: (c) => c.subject ?? "" },
  { title: "From", cell: (c) => value(c, c.from) },
  { title: "To", cell: (c) => value(c, c.to) },
];

type Key = { cluster: string; namespace: string; name: string };

export function DiffPage({ route }: { route: Route }) {
  const key = route.release as Key;
  const base = releasePath(key);
  const list = useLoad(base, () => getJson<{ snapshots: SnapshotSummary[] }>(`${base}/snapshots?since=90d&limit=200`));
  const snapshots = list.data?.snapshots ?? [];
  const to = route.query.get("to") ?? snapshots[0]?.id ?? "";
  const index = snapshots.findIndex((s) => s.id === to);
  const from = route.query.get("from") ?? (index >= 0 ? (snapshots[index + 1]?.id ?? "") : "");
  const diff = useLoad(`${to}|${from}`, async () =>
    to && from
      ? getJson<SnapshotDiff>(`${base}/snapshots/${encodeURIComponent(to)}/diff${query({ against: from })}`)
      : undefined,
  );
  const pick = (which: "from" | "to", id: string) => navigate(href("diff", key, { from, to, [which]: id }));
  const option = (s: SnapshotSummary) => (
    <option key={s.id} value={s.id}>
      {when(s.firstSeenAt)} — {s.health.overall}, revision {s.revision}
    </option>
  );
  return (
    <main>
      <p class="crumbs">
        <a href={href("fleet")}>Fleet</a> / <a href={href("release", key)}>{`${key.namespace}/${key.name}`}</a> on{" "}
        {key.cluster}
      </p>
      <h1>Snapshot diff</h1>
      <Problem error={list.error} />
      <Loading when={list.loading && !list.data} />
      {list.data && snapshots.length < 2 ? <p>Only one snapshot so far: nothing to compare yet.</p> : null}
      {snapshots.length > 0 && (
        <div class="filters">
          <label>
            From
            <select value={from} onChange={(e) => pick("from", e.currentTarget.value)}>
              <option value="">choose…</option>
              {snapshots.map(option)}
            </select>
          </label>
          <label>
            To
            <select value={to} onChange={(e) => pick("to", e.currentTarget.value)}>
              {snapshots.map(option)}
            </select>
          </label>
        </div>
      )}
      <Problem error={diff.error} />
      {diff.data && (
        <>
          <Section title="What changed" id="changes">
            {diff.data.changes.length === 0 ? (
              <p>Nothing the history tracks changed.</p>
            ) : (
              <DataTable columns={CHANGE_COLUMNS} rows={diff.data.changes} rowKey={(_, i) => i} />
            )}
            {diff.data.revisionBy?.who.state === "found" && (
              <p title={whoTitle(diff.data.revisionBy.who)}>
                Revision {diff.data.revisionBy.revision} by {whoText(diff.data.revisionBy.who)}
              </p>
            )}
          </Section>
          <Section title="Status text, before and after" id="textdiff">
            <pre class="text diff">
              {diff.data.diff.split("\n").map((line, i) => (
                <span key={i} class={line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : undefined}>
                  {line}
                  {"\n"}
                </span>
              ))}
            </pre>
          </Section>
        </>
      )}
    </main>
  );
}
