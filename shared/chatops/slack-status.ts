/**
 * A status report as a Block Kit message: header (release, cluster), the release
 * fields, what needs attention first (MISSING and unhealthy resources), one
 * section per resource group with its rows in a code block (unhealthy groups
 * first, bad rows marked), NOTES cut short, Refresh/History buttons, and the API
 * path of the full text. Always within Slack's limits.
 */

import { driftTable } from "../render/status/drift.ts";
import { auditLoggingLine, compareGroups, outsideAccessLine, storedLine } from "../render/status/text.ts";
import { alignLines, formatCell, printTable, visibleColumns } from "../render/tables/kubectl-printer.ts";
import { formatAnsiC, isZeroTime } from "../render/time/helm-time.ts";
import { RELATED_PODS_KEY, type ResourceEntry, type StatusReport } from "../status/report.ts";
import { CAUSES_SHOWN } from "../why/causes.ts";
import { clip, escapeMrkdwn, fitCode, SLACK_LIMITS as L, pluralKind } from "./limits.ts";
import type { ResolvedCommand } from "./resolve.ts";
import {
  ACTION_HISTORY,
  ACTION_REFRESH,
  Builder,
  canonical,
  fullTextLine,
  HEALTH_EMOJI,
  MAX_GROUP_ROWS,
  type SlackMessage,
  type SlackRenderOptions,
} from "./slack-builder.ts";

interface GroupView {
  key: string;
  kind: string;
  attention: boolean;
  header: string;
  rows: string[];
}

export function statusMessage(
  report: StatusReport,
  target: Extract<ResolvedCommand, { verb: "status" }>,
  options: SlackRenderOptions,
): SlackMessage {
  const { release } = report;
  const health = report.health;
  const footer = fullTextLine(target, options);
  // Reserved for the summary, notes, buttons and footer that close the message.
  const b = new Builder(4, 600 + footer.length);
  b.header(`${release.namespace}/${release.name} on ${report.cluster}`);
  const lastDeployed =
    release.info.last_deployed && !isZeroTime(release.info.last_deployed)
      ? formatAnsiC(release.info.last_deployed)
      : "-";
  const chart = release.chart ? `${release.chart.name}-${release.chart.version}` : "MISSING";
  b.fields([
    `*STATUS*\n${escapeMrkdwn(release.info.status)}`,
    `*REVISION*\n${release.version}`,
    `*LAST DEPLOYED*\n${escapeMrkdwn(lastDeployed)}`,
    `*HEALTH*\n${HEALTH_EMOJI[health.overall]} ${health.overall}`,
    `*CHART*\n${escapeMrkdwn(chart)}${release.chart?.appVersion ? ` (app ${escapeMrkdwn(release.chart.appVersion)})` : ""}`,
    `*DESCRIPTION*\n${escapeMrkdwn(release.info.description || "-")}`,
  ]);
  b.context([
    escapeMrkdwn(`${health.ruleset}: ${health.message}`),
    report.freshness ? escapeMrkdwn(storedLine(report.freshness)) : "",
    report.outsideAccess ? escapeMrkdwn(outsideAccessLine(report.outsideAccess)) : "",
    report.auditLogging ? escapeMrkdwn(clip(auditLoggingLine(report.auditLogging), 300)) : "",
    report.complete ? "" : ":hourglass_flowing_sand: some resources were not read in time",
    `read ${escapeMrkdwn(report.observedAt.replace(/\.\d+Z$/, "Z"))} in ${report.counters.durationMs} ms`,
  ]);

  // Why, under the health: the cause chains (shared/why), the first few.
  if (report.causes?.length) {
    const shown = report.causes.slice(0, CAUSES_SHOWN).map((c) => `• ${escapeMrkdwn(c.text)}`);
    const more = report.causes.length - shown.length;
    b.section(`*Why*\n${shown.join("\n")}${more > 0 ? `\n• … and ${more} more` : ""}`);
  }

  // Drift, with who made each write when the audit log said (CHANGED BY: `kubectl-patch by alice@example.com`).
  const drift = driftTable(report);
  if (drift) {
    const [header, ...rows] = alignLines([drift.columns, ...drift.rows])
      .trimEnd()
      .split("\n");
    const fitted = fitCode(
      `:pencil2: *Drift (${rows.length})*`,
      header,
      rows,
      Math.min(L.text, 2000),
      (hidden) => `…and ${hidden} more drifted fields`,
    );
    if (fitted) b.section(fitted.text);
  }

  const attention = attentionRows(report);
  if (attention.length > 0) {
    const fitted = fitCode(
      `:rotating_light: *Needs attention (${attention.length - 1})*`,
      attention[0],
      attention.slice(1),
      Math.min(L.text, 2500),
      (hidden) => `…and ${hidden} more`,
    );
    if (fitted) b.section(fitted.text);
  }

  const groups = groupViews(report);
  const left: GroupView[] = [];
  for (const [i, group] of groups.entries()) {
    const room = Math.min(L.text, b.charsLeft);
    const title = `${group.attention ? ":warning: " : ""}*${escapeMrkdwn(group.key)}* (${group.rows.length})`;
    const fitted =
      b.blocksLeft > 0 && room > 200
        ? fitCode(
            title,
            group.header,
            group.rows.slice(0, MAX_GROUP_ROWS),
            room,
            (hidden) => `…and ${hidden} more ${pluralKind(group.kind, hidden)}`,
            "first",
            Math.max(0, group.rows.length - MAX_GROUP_ROWS),
          )
        : undefined;
    if (group.rows.length === 0) continue;
    if (!fitted || fitted.shown === 0) {
      left.push(...groups.slice(i));
      break;
    }
    b.section(fitted.text);
  }
  b.release();
  // Only what was left out with rows: an empty group (workloads without pods) leaves nothing out.
  const hidden = left.filter((g) => g.rows.length > 0);
  if (hidden.length > 0) {
    const count = hidden.reduce((n, g) => n + g.rows.length, 0);
    const names = hidden.map((g) => `${escapeMrkdwn(g.key)} (${g.rows.length})`).join(", ");
    const what = `${count} more ${count === 1 ? "resource" : "resources"} in ${hidden.length} ${hidden.length === 1 ? "group" : "groups"}`;
    b.section(clip(`…and ${what}: ${names}`, 500));
  }
  const notes = release.info.notes?.trim();
  if (notes) {
    const lines = notes.split("\n");
    b.context([
      `*NOTES* ${escapeMrkdwn(clip(lines[0], 200))}${lines.length > 1 ? ` _(+${lines.length - 1} lines in the full text)_` : ""}`,
    ]);
  }
  b.buttons([
    { text: "Refresh", action: ACTION_REFRESH, value: canonical(target, "status") },
    { text: "History", action: ACTION_HISTORY, value: canonical(target, "history") },
  ]);
  b.context([footer]);
  return {
    text: `${release.namespace}/${release.name} on ${report.cluster}: ${release.info.status}, revision ${release.version}, health ${health.overall}`,
    blocks: b.blocks,
  };
}

/** MISSING entries, then resources that are not Current: KIND NAME STATE MESSAGE (the first row is the header). */
function attentionRows(report: StatusReport): string[] {
  const rows: string[][] = [["KIND", "NAME", "STATE", "DETAIL"]];
  for (const m of report.missing) {
    const kind = m.apiVersion && m.kind ? `${m.apiVersion.split("/").pop()}/${m.kind}` : (m.kind ?? "<unknown>");
    rows.push([
      kind,
      m.name ?? "<unknown>",
      "MISSING",
      formatCell(clip(m.message ? `${m.reason}: ${m.message}` : m.reason, 120)),
    ]);
  }
  const missing = new Set(report.missing.map((m) => `${m.kind}/${m.name}`));
  for (const h of report.health.resources) {
    if (h.status === "Current" || (h.status === "NotFound" && missing.has(`${h.kind}/${h.name}`))) continue;
    rows.push([`${h.apiVersion.split("/").pop()}/${h.kind}`, h.name, h.status, formatCell(clip(h.message, 120))]);
  }
  if (rows.length === 1) return [];
  return alignLines(rows).trimEnd().split("\n");
}

const HEALTHY_POD = /^(Running|Completed|Succeeded)$/;

/** Resource groups, those with something wrong first (then Helm's install order), unhealthy rows marked `!`. */
function groupViews(report: StatusReport): GroupView[] {
  const byKey = new Map<string, ResourceEntry[]>();
  for (const entry of [...report.resources].sort((a, b) => a.index - b.index)) {
    byKey.set(entry.groupKey, [...(byKey.get(entry.groupKey) ?? []), entry]);
  }
  const views: GroupView[] = [];
  for (const [key, entries] of byKey) {
    const marks = entries.flatMap((e) => e.rows.map(() => e.health.status !== "Current"));
    views.push({ key, kind: entries[0].kind, ...markedTable(entries, marks) });
  }
  views.sort((a, b) =>
    a.attention !== b.attention ? (a.attention ? -1 : 1) : compareGroups(a.kind, a.key, b.kind, b.key),
  );
  if (report.relatedPods.length > 0) {
    const tables = report.relatedPods.map((p) => ({ columns: p.columns, rows: p.rows }));
    const marks = report.relatedPods.flatMap((p) => p.rows.map((row) => !podLooksHealthy(p.columns, row)));
    const view = { key: RELATED_PODS_KEY, kind: "Pod", ...markedTable(tables, marks) };
    const firstHealthy = views.findIndex((v) => !v.attention);
    if (view.attention) views.splice(firstHealthy < 0 ? views.length : firstHealthy, 0, view);
    else views.push(view);
  }
  return views;
}

function markedTable(
  tables: { columns: ResourceEntry["columns"]; rows: unknown[][] }[],
  marks: boolean[],
): { attention: boolean; header: string; rows: string[] } {
  const attention = marks.some(Boolean);
  const columns = tables[0].columns;
  const same = tables.every(
    (t) =>
      JSON.stringify(visibleColumns(t.columns).map((i) => t.columns[i].name)) ===
      JSON.stringify(visibleColumns(columns).map((i) => columns[i].name)),
  );
  const rows = tables.flatMap((t) => t.rows);
  const lines = same
    ? printTable({ columns, rows }).trimEnd().split("\n")
    : ["NAME", ...tables.flatMap((t) => printTable(t).trimEnd().split("\n").slice(1))];
  const prefix = (marked: boolean) => (attention ? (marked ? "! " : "  ") : "");
  return {
    attention,
    header: `${prefix(false)}${lines[0] ?? ""}`,
    rows: lines.slice(1).map((line, i) => `${prefix(marks[i] ?? false)}${line}`),
  };
}

function podLooksHealthy(columns: ResourceEntry["columns"], row: unknown[]): boolean {
  const at = (name: string) => columns.findIndex((c) => c.name.toLowerCase() === name);
  const status = String(row[at("status")] ?? "");
  const ready = /^(\d+)\/(\d+)$/.exec(String(row[at("ready")] ?? ""));
  if (!HEALTHY_POD.test(status)) return false;
  return status !== "Running" || !ready || ready[1] === ready[2];
}
