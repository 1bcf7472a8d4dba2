/**
 * One release: its live status (the API's JSON for health, MISSING and DRIFT; its Helm text for the groups of
 * resource tables and "copy as helm status text"), a revision picker, the health timeline, history and the
 * redacted manifest. Secret values never reach the page: the API redacts them before they leave the core.
 */
import { useState } from "preact/hooks";
import type { HelmHistoryElement } from "../../../shared/render/tables/release-tables.ts";
import type { ReleaseTimeline } from "../../../shared/usecases/timeline.ts";
import { getJson, getText, query, releasePath } from "../api.ts";
import { ago, DEFAULT_RANGE, when } from "../format.ts";
import { ReliabilitySummary } from "../reliability.tsx";
import { href, navigate, type Route } from "../route.ts";
import { parseStatusText, type TextTable } from "../status-text.ts";
import { ReleaseTimelineChart } from "../timeline-chart.tsx";
import { Health, Loading, Problem, Section, TextTableView, useLoad } from "../ui.tsx";
import { RangePicker } from "./timeline.tsx";

type Key = { cluster: string; namespace: string; name: string };

interface StatusJson {
  version: number;
  info: { status: string; last_deployed?: string; description?: string };
  observedAt: string;
  complete: boolean;
  health: {
    overall: string;
    message: string;
    resources: { apiVersion: string; kind: string; name: string; status: string; message: string }[];
  };
  missing: { apiVersion?: string; kind?: string; name?: string; reason: string; message?: string }[];
  drift?: {
    fields: {
      apiVersion: string;
      kind: string;
      name: string;
      field: string;
      release?: string;
      live: string;
      changedBy?: string;
      changedAt?: string;
      conflicts: boolean;
      benign?: string;
    }[];
  };
}

/** Helm's group key: the version without its API group, then the kind (`v1/Deployment`). */
const kindOf = (r: { apiVersion?: string; kind?: string }) =>
  r.kind ? `${(r.apiVersion ?? "").split("/").at(-1)}/${r.kind}` : "";

function healthTable(status: StatusJson): TextTable {
  return {
    title: "HEALTH",
    columns: ["KIND", "NAME", "STATUS", "MESSAGE"],
    rows: status.health.resources.map((r) => [kindOf(r), r.name, r.status, r.message]),
  };
}

function missingTable(status: StatusJson): TextTable {
  return {
    title: "MISSING",
    columns: ["KIND", "NAME", "REASON"],
    rows: status.missing.map((m) => [kindOf(m), m.name ?? "", m.message ? `${m.reason}: ${m.message}` : m.reason]),
  };
}

function driftTable(status: StatusJson): TextTable {
  return {
    title: "DRIFT",
    columns: ["KIND", "NAME", "FIELD", "RELEASE -> LIVE", "CHANGED BY", "WHEN", "NOTE"],
    rows: (status.drift?.fields ?? []).map((f) => [
      kindOf(f),
      f.name,
      f.field,
      `${f.release ?? "<none>"} -> ${f.live}`,
      f.changedBy ?? "",
      f.changedAt ? `${when(f.changedAt)} (${ago(f.changedAt)})` : "",
      f.conflicts ? "next upgrade conflicts" : (f.benign ?? ""),
    ]),
  };
}

const OWN_SECTIONS = new Set(["HEALTH", "MISSING", "DRIFT"]);

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

  const status = useLoad(`${base}@${revision}`, async () => {
    const q = query({ revision });
    const [json, text] = await Promise.all([getJson<StatusJson>(`${base}/status${q}`), getText(`${base}/status${q}`)]);
    return { json, text, parsed: parseStatusText(text) };
  });
  const history = useLoad(base, () => getJson<{ history: HelmHistoryElement[] }>(`${base}/history?max=50`));
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
        {key.name} {s ? <Health health={s.json.health.overall} title={s.json.health.message} /> : null}
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
              await navigator.clipboard.writeText(s!.text);
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
            <dl class="fields">
              {s.parsed.fields.map(([k, v]) => (
                <div key={k}>
                  <dt>{k}</dt>
                  <dd>{v}</dd>
                </div>
              ))}
              <div>
                <dt>READ</dt>
                <dd>
                  {when(s.json.observedAt)}
                  {s.json.complete ? "" : " (partial: some resources were not read in time)"}
                </dd>
              </div>
            </dl>
            {s.parsed.sections
              .filter((t) => !OWN_SECTIONS.has(t.title))
              .map((t) => (
                <TextTableView key={t.title} table={t} />
              ))}
            {s.json.missing.length > 0 && <TextTableView table={missingTable(s.json)} />}
            {(s.json.drift?.fields.length ?? 0) > 0 && <TextTableView table={driftTable(s.json)} />}
            <TextTableView table={healthTable(s.json)} />
            {s.parsed.notes.trim() && (
              <details>
                <summary>NOTES</summary>
                <pre>{s.parsed.notes}</pre>
              </details>
            )}
            <details>
              <summary>helm status text</summary>
              <pre class="text">{s.text}</pre>
            </details>
          </>
        )}
      </Section>

      <Section title="History" id="history">
        <Problem error={history.error} />
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Revision</th>
                <th scope="col">Updated</th>
                <th scope="col">Status</th>
                <th scope="col">Chart</th>
                <th scope="col">App version</th>
                <th scope="col">Description</th>
              </tr>
            </thead>
            <tbody>
              {revisions.map((h) => (
                <tr key={h.revision}>
                  <td>
                    <a href={link({ revision: String(h.revision) })}>{h.revision}</a>
                  </td>
                  <td title={h.updated}>{when(h.updated)}</td>
                  <td>{h.status}</td>
                  <td>{h.chart}</td>
                  <td>{h.app_version}</td>
                  <td>{h.description}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
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
