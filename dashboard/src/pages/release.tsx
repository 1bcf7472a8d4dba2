/**
 * One release: its live status (one read per load: the API's status document, whose `groups` are the tables of
 * Helm's text), a revision picker, the health timeline, history and the redacted manifest. The helm status text
 * itself is read only when asked for (copy, or its section opened). Secret values never reach the page: the API
 * redacts them before they leave the core.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { HelmHistoryElement } from "../../../shared/render/tables/release-tables.ts";
import type { ReleaseTimeline } from "../../../shared/usecases/timeline.ts";
import { getJson, getText, query, releasePath } from "../api.ts";
import { DataTable } from "../data-table.tsx";
import { DEFAULT_RANGE, when } from "../format.ts";
import { ReliabilitySummary } from "../reliability.tsx";
import { href, navigate, type Route } from "../route.ts";
import { type StatusDocument, statusFields, statusTables, whyView } from "../status-view.ts";
import { type Column, textColumns } from "../table.ts";
import { ReleaseTimelineChart } from "../timeline-chart.tsx";
import { Fields, Health, Loading, Problem, Section, useLoad } from "../ui.tsx";
import { whoText, whoTitle } from "../who.ts";
import { RangePicker } from "./timeline.tsx";

type Key = { cluster: string; namespace: string; name: string };

/**
 * The helm status text, read only when asked for (the page's own read is the JSON), once per status load: after
 * a Refresh or another revision it is read again only if it was asked for before.
 */
function useStatusText(url: string, loaded: unknown) {
  const [state, setState] = useState<{ reading?: Promise<string>; shown?: string }>({});
  const wanted = useRef(false);
  const start = () => {
    const reading = getText(url);
    setState({ reading });
    const show = (shown: string) => setState((s) => (s.reading === reading ? { reading, shown } : s));
    reading.then(show, (error: Error) => show(`could not read it: ${error.message}`));
    return reading;
  };
  useEffect(() => {
    if (wanted.current) start();
    else setState({});
  }, [url, loaded]);
  const read = () => {
    wanted.current = true;
    return state.reading ?? start();
  };
  return { read, shown: state.shown };
}

/** Writes the text to the clipboard; the text may still be on its way (a promise keeps the click's permission). */
async function copyText(text: Promise<string>): Promise<void> {
  if (typeof ClipboardItem !== "undefined" && navigator.clipboard.write) {
    const blob = text.then((t) => new Blob([t], { type: "text/plain" }));
    await navigator.clipboard.write([new ClipboardItem({ "text/plain": blob })]);
  } else {
    await navigator.clipboard.writeText(await text);
  }
}

export function ReleasePage({ route }: { route: Route }) {
  const key = route.release as Key;
  const revision = route.query.get("revision") ?? "";
  const range = route.query.get("range") ?? DEFAULT_RANGE;
  const base = releasePath(key);
  const link = (change: Record<string, string | undefined>) =>
    href("release", key, {
      revision: revision || undefined,
      range: range === DEFAULT_RANGE ? undefined : range,
      ...change,
    });

  const statusUrl = `${base}/status${query({ revision })}`;
  const status = useLoad(statusUrl, () => getJson<StatusDocument>(statusUrl));
  const text = useStatusText(statusUrl, status.data);
  const history = useLoad(base, () =>
    getJson<{ history: HelmHistoryElement[]; auditLogging?: string }>(`${base}/history?max=50`),
  );
  const timeline = useLoad(`${base}~${range}`, () => getJson<ReleaseTimeline>(`${base}/timeline?since=${range}`));
  const [copied, setCopied] = useState("");
  const [manifest, setManifest] = useState<string | undefined>();

  const s = status.data;
  const revisions = [...(history.data?.history ?? [])].reverse();
  return (
    <main>
      <p class="crumbs">
        <a href={href("fleet")}>Fleet</a> / {key.cluster} / {key.namespace}
      </p>
      <h1>
        {key.name} {s ? <Health health={s.health.overall} title={s.health.message} /> : null}
      </h1>
      <div class="toolbar">
        <label>
          Revision
          <select value={revision} onChange={(e) => navigate(link({ revision: e.currentTarget.value || undefined }))}>
            <option value="">latest</option>
            {revisions.map((h) => (
              <option key={h.revision} value={String(h.revision)}>
                {h.revision} — {h.status} ({h.chart})
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => status.reload()} disabled={status.loading}>
          {status.loading ? "Refreshing…" : "Refresh"}
        </button>
        <button
          type="button"
          disabled={!s}
          onClick={async () => {
            try {
              await copyText(text.read());
              setCopied("copied the helm status text");
            } catch {
              setCopied("the browser refused the clipboard: select the text under “helm status text” instead");
            }
          }}
        >
          Copy as helm status text
        </button>
        <a href={href("diff", key)}>Compare snapshots</a>
        <span aria-live="polite" class="muted">
          {copied}
        </span>
      </div>

      <Section title="Health over time" id="timeline">
        <RangePicker value={range} link={(r) => link({ range: r === DEFAULT_RANGE ? undefined : r })} />
        <Problem error={timeline.error} />
        {timeline.data && (
          <ReleaseTimelineChart {...timeline.data} onPick={(id) => navigate(href("diff", key, { to: id }))} />
        )}
        <ReliabilitySummary path={`${base}/reliability`} range={range} />
      </Section>

      <Section title="Status" id="status">
        <Problem error={status.error} />
        <Loading when={status.loading && !s} />
        {s && (
          <>
            <Fields fields={statusFields(s)} />
            <Why view={whyView(s)} />
            {statusTables(s).map((table, i) => (
              <DataTable
                key={`${i}:${table.caption}`}
                class="helm"
                caption={table.caption}
                columns={textColumns(table.columns)}
                rows={table.rows}
                rowKey={(_, j) => j}
              />
            ))}
            {s.info.notes?.trim() && (
              <details>
                <summary>NOTES</summary>
                <pre>{s.info.notes}</pre>
              </details>
            )}
            <details
              onToggle={(e) => {
                if ((e.currentTarget as HTMLDetailsElement).open) text.read();
              }}
            >
              <summary>helm status text</summary>
              <pre class="text">{text.shown ?? "loading…"}</pre>
            </details>
          </>
        )}
      </Section>

      <Section title="History" id="history">
        <Problem error={history.error} />
        <DataTable columns={historyColumns(link)} rows={revisions} rowKey={(h) => h.revision} />
        {history.data?.auditLogging && <p class="muted">{history.data.auditLogging}</p>}
      </Section>

      <Section title="Manifest" id="manifest">
        <details
          onToggle={async (e) => {
            if (!(e.currentTarget as HTMLDetailsElement).open || manifest !== undefined) return;
            setManifest("loading…");
            try {
              setManifest(await getText(`${base}/revisions/${revision || "0"}/manifest`));
            } catch (error) {
              setManifest(`could not load it: ${(error as Error).message}`);
            }
          }}
        >
          <summary>revision {revision || "latest"} (Secret values redacted)</summary>
          <pre class="text">{manifest}</pre>
        </details>
      </Section>
    </main>
  );
}

/** The history's columns; a revision links to the page at that revision. */
function historyColumns(link: (change: Record<string, string | undefined>) => string): Column<HelmHistoryElement>[] {
  return [
    { title: "Revision", cell: (h) => <a href={link({ revision: String(h.revision) })}>{h.revision}</a> },
    { title: "Updated", cell: (h) => when(h.updated), cellTitle: (h) => h.updated },
    { title: "Status", cell: (h) => h.status },
    { title: "Chart", cell: (h) => h.chart },
    { title: "App version", cell: (h) => h.app_version },
    { title: "Description", cell: (h) => h.description },
    // Who created the revision, from the EKS audit log (docs/who.md): text, never markup.
    { title: "Who", cell: (h) => whoText(h.who), cellTitle: (h) => whoTitle(h.who) },
  ];
}

/** The cause first (one line per resource not Current), then the events, then the log excerpts collapsed. */
function Why({ view }: { view: ReturnType<typeof whyView> }) {
  if (view.causes.length === 0 && !view.events && view.logs.length === 0) return null;
  return (
    <section class="why" aria-label="why it is not healthy">
      {view.causes.length > 0 && (
        <ul class="causes">
          {view.causes.map((cause) => (
            <li key={cause}>{cause}</li>
          ))}
        </ul>
      )}
      {view.events && (
        <DataTable
          class="helm"
          caption={view.events.caption}
          columns={textColumns(view.events.columns)}
          rows={view.events.rows}
          rowKey={(_, j) => j}
        />
      )}
      {view.logs.map((log) => (
        <details key={log.caption}>
          <summary>log {log.caption}</summary>
          {log.lines ? <pre class="text">{log.lines.join("\n")}</pre> : <p>{log.unread}</p>}
        </details>
      ))}
    </section>
  );
}
