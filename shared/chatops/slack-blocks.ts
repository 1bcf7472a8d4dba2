/**
 * Chat answers as Slack Block Kit messages, readable on a phone: a header
 * (release, cluster), the release fields, what needs attention first (MISSING
 * and unhealthy resources), one section per resource group with its rows in a
 * code block, NOTES cut short, and Refresh/History buttons. Always within
 * Slack's limits (limits.ts); what does not fit is summarised with the API path
 * that gives the full text.
 */
import { formatAnsiC, isZeroTime } from "../format/ansi-time.ts";
import { renderHelmHistory, renderHelmList } from "../format/release-tables.ts";
import type { HealthStatus } from "../health/index.ts";
import { alignLines, formatCell, printTable, visibleColumns } from "../status/printer.ts";
import { compareGroups } from "../status/render-text.ts";
import { RELATED_PODS_KEY, type ResourceEntry, type StatusReport } from "../status/report.ts";
import type { ChatAnswer } from "./answer.ts";
import { fleetLines, timelineLines } from "./history-views.ts";
import { clip, escapeMrkdwn, fitCode, SLACK_LIMITS as L, pluralKind } from "./limits.ts";
import { apiPathOf, type ResolvedCommand } from "./resolve.ts";

export type TextObject = { type: "plain_text"; text: string; emoji?: boolean } | { type: "mrkdwn"; text: string };
export type SlackBlock =
  | { type: "header"; text: { type: "plain_text"; text: string; emoji?: boolean } }
  | { type: "section"; text?: TextObject; fields?: TextObject[] }
  | { type: "context"; elements: TextObject[] }
  | { type: "divider" }
  | {
      type: "actions";
      block_id?: string;
      elements: { type: "button"; text: { type: "plain_text"; text: string }; action_id: string; value: string }[];
    };

export interface SlackMessage {
  response_type?: "ephemeral" | "in_channel";
  replace_original?: boolean;
  /** Notification / fallback text. */
  text: string;
  blocks: SlackBlock[];
}

export interface SlackRenderOptions {
  /** The HTTP API's base URL, shown before the API paths (none: the path alone). */
  apiBaseUrl?: string;
  /** Slash command for the usage and the buttons' canonical commands (default /helm). */
  prefix?: string;
}

/** Rows shown per resource group (a phone screen, not a dump); the full text has the rest. */
export const MAX_GROUP_ROWS = 20;

export const ACTION_REFRESH = "helm_refresh";
export const ACTION_HISTORY = "helm_history";
export const ACTION_STATUS = "helm_status";

export const HEALTH_EMOJI: Record<HealthStatus, string> = {
  Current: ":large_green_circle:",
  InProgress: ":large_yellow_circle:",
  Failed: ":red_circle:",
  Terminating: ":large_orange_circle:",
  NotFound: ":black_circle:",
  Unknown: ":white_circle:",
};

/** A message under construction: every add checks Slack's limits and the total budget. */
class Builder {
  readonly blocks: SlackBlock[] = [];
  used = 0;
  reserveBlocks: number;
  reserveChars: number;
  constructor(reserveBlocks: number, reserveChars: number) {
    this.reserveBlocks = reserveBlocks;
    this.reserveChars = reserveChars;
  }
  get blocksLeft() {
    return L.blocks - this.blocks.length - this.reserveBlocks;
  }
  get charsLeft() {
    return L.total - this.used - this.reserveChars;
  }
  header(text: string) {
    const value = clip(text, L.header);
    this.used += value.length;
    this.blocks.push({ type: "header", text: { type: "plain_text", text: value, emoji: true } });
  }
  section(text: string) {
    const value = clip(text, L.text);
    this.used += value.length;
    this.blocks.push({ type: "section", text: { type: "mrkdwn", text: value } });
  }
  fields(fields: string[]) {
    const values = fields.slice(0, L.fields).map((f) => clip(f, L.field));
    this.used += values.reduce((n, f) => n + f.length, 0);
    this.blocks.push({ type: "section", fields: values.map((text) => ({ type: "mrkdwn", text })) });
  }
  context(texts: string[]) {
    const values = texts
      .filter(Boolean)
      .slice(0, L.contextElements)
      .map((t) => clip(t, L.text));
    if (values.length === 0) return;
    this.used += values.reduce((n, f) => n + f.length, 0);
    this.blocks.push({ type: "context", elements: values.map((text) => ({ type: "mrkdwn", text })) });
  }
  buttons(buttons: { text: string; action: string; value: string }[]) {
    const elements = buttons
      .filter((b) => b.value.length <= L.buttonValue)
      .map((b) => ({
        type: "button" as const,
        text: { type: "plain_text" as const, text: clip(b.text, L.buttonText) },
        action_id: b.action,
        value: b.value,
      }));
    if (elements.length > 0) this.blocks.push({ type: "actions", block_id: "helm_actions", elements });
  }
  /** Hands the reserve to the closing blocks. */
  release() {
    this.reserveBlocks = 0;
    this.reserveChars = 0;
  }
}

export function renderSlackAnswer(answer: ChatAnswer, options: SlackRenderOptions = {}): SlackMessage {
  switch (answer.kind) {
    case "status":
      return statusMessage(answer.report, answer.target as Extract<ResolvedCommand, { verb: "status" }>, options);
    case "history":
      return historyMessage(answer, options);
    case "fleet": {
      const t = answer.target;
      const b = new Builder(0, 0);
      b.header(`Unhealthy now${t.cluster ? ` on ${t.cluster}` : ""}`);
      if (answer.entries.length === 0) {
        b.section(
          `${HEALTH_EMOJI.Current} Every release the last audit saw${t.cluster ? "" : ` (${escapeMrkdwn(t.clusters.join(", "))})`} is Current.`,
        );
      } else {
        const lines = fleetLines(answer.entries);
        const fitted = fitCode("", lines[0], lines.slice(1), L.text, (hidden) => `…and ${hidden} more releases`);
        if (fitted) b.section(fitted.text.replace(/^\n/, ""));
      }
      b.context([answer.more ? `More: ${fullTextLine(t, options, "see")}` : fullTextLine(t, options)]);
      return { text: `${answer.entries.length} releases not Current`, blocks: b.blocks };
    }
    case "timeline": {
      const t = answer.target;
      const b = new Builder(0, 0);
      b.header(`${t.namespace}/${t.release} timeline on ${t.cluster}`);
      if (answer.snapshots.length === 0) b.section("No snapshots yet: the release has not been audited.");
      else {
        const lines = timelineLines(answer.snapshots);
        const fitted = fitCode("", lines[0], lines.slice(1), L.text, (hidden) => `…and ${hidden} older snapshots`);
        if (fitted) b.section(fitted.text.replace(/^\n/, ""));
      }
      b.buttons([
        {
          text: "Status",
          action: ACTION_STATUS,
          value: `status ${t.release} -n ${t.namespace} --cluster ${t.cluster}`,
        },
      ]);
      b.context([answer.more ? `Older snapshots: ${fullTextLine(t, options, "see")}` : fullTextLine(t, options)]);
      return {
        text: `${t.namespace}/${t.release} on ${t.cluster}: ${answer.snapshots.length} snapshots`,
        blocks: b.blocks,
      };
    }
    case "list":
      return listMessage(answer, options);
    case "help": {
      const b = new Builder(0, 0);
      b.header("helm status in Slack");
      b.section(`\`\`\`\n${escapeMrkdwn(answer.usage.split("\n\n")[0])}\n\`\`\``);
      b.section(escapeMrkdwn(answer.usage.split("\n\n").slice(1).join("\n")));
      b.context([
        answer.clusters.length === 0
          ? "This channel may not read any cluster: an admin adds it to CHATOPS_ACCESS."
          : `This channel may read ${escapeMrkdwn(answer.clusters.join(", "))}${
              answer.defaults.cluster ? ` (default cluster ${escapeMrkdwn(answer.defaults.cluster)}` : " ("
            }${answer.defaults.namespace ? `${answer.defaults.cluster ? ", " : ""}namespace ${escapeMrkdwn(answer.defaults.namespace)})` : answer.defaults.cluster ? ")" : "no defaults)"}`,
      ]);
      return { text: "helm status in Slack: usage", blocks: b.blocks };
    }
    case "usage": {
      const b = new Builder(0, 0);
      b.section(`:warning: ${escapeMrkdwn(answer.error)}`);
      b.section(`\`\`\`\n${escapeMrkdwn(answer.usage.split("\n\n")[0])}\n\`\`\``);
      return { text: clip(answer.error, 300), blocks: b.blocks };
    }
    case "denied": {
      const b = new Builder(0, 0);
      b.section(`:no_entry: ${escapeMrkdwn(answer.message)}`);
      return { text: answer.message, blocks: b.blocks };
    }
    case "error": {
      const b = new Builder(0, 0);
      b.section(`:x: ${escapeMrkdwn(answer.message)}`);
      b.context([`\`${escapeMrkdwn(answer.code)}\``]);
      return { text: clip(answer.message, 300), blocks: b.blocks };
    }
  }
}

/** The immediate ephemeral acknowledgement ("checking shop/api on prod-eu…"). */
export function ackText(target: ResolvedCommand): string {
  switch (target.verb) {
    case "status":
      return `checking ${target.namespace}/${target.release}${target.revision ? ` (revision ${target.revision})` : ""} on ${target.cluster}…`;
    case "history":
      return `reading the history of ${target.namespace}/${target.release} on ${target.cluster}…`;
    case "list":
      return `listing the releases of ${target.namespace ? `${target.namespace} on ` : ""}${target.cluster}…`;
    case "timeline":
      return `reading the status history of ${target.namespace}/${target.release} on ${target.cluster}…`;
    case "fleet":
      return `looking for unhealthy releases on ${target.clusters.join(", ")}…`;
    case "help":
      return "";
  }
}

function fullTextLine(target: ResolvedCommand, options: SlackRenderOptions, what = "Full text"): string {
  const path = apiPathOf(target);
  return path ? `${what}: \`GET ${escapeMrkdwn((options.apiBaseUrl ?? "").replace(/\/$/, "") + path)}\`` : "";
}

function canonical(target: ResolvedCommand, verb: "status" | "history"): string {
  if (target.verb !== "status" && target.verb !== "history") return "";
  const revision =
    verb === "status" && target.verb === "status" && target.revision ? ` --revision ${target.revision}` : "";
  return `${verb} ${target.release} -n ${target.namespace} --cluster ${target.cluster}${revision}`;
}

interface GroupView {
  key: string;
  kind: string;
  attention: boolean;
  header: string;
  rows: string[];
}

function statusMessage(
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
    report.complete ? "" : ":hourglass_flowing_sand: some resources were not read in time",
    `read ${escapeMrkdwn(report.observedAt.replace(/\.\d+Z$/, "Z"))} in ${report.counters.durationMs} ms`,
  ]);

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
    if (!fitted || fitted.shown === 0) {
      left.push(...groups.slice(i));
      break;
    }
    b.section(fitted.text);
  }
  b.release();
  if (left.length > 0) {
    const count = left.reduce((n, g) => n + g.rows.length, 0);
    const names = left.map((g) => `${escapeMrkdwn(g.key)} (${g.rows.length})`).join(", ");
    b.section(clip(`…and ${count} more resources in ${left.length} groups: ${names}`, 500));
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

function historyMessage(answer: Extract<ChatAnswer, { kind: "history" }>, options: SlackRenderOptions): SlackMessage {
  const t = answer.target;
  const b = new Builder(0, 0);
  b.header(`${t.namespace}/${t.release} history on ${t.cluster}`);
  const lines = renderHelmHistory(answer.revisions).trimEnd().split("\n");
  const fitted = fitCode("", lines[0], lines.slice(1), L.text, (hidden) => `…and ${hidden} older revisions`, "last");
  if (fitted) b.section(fitted.text.replace(/^\n/, ""));
  b.buttons([{ text: "Status", action: ACTION_STATUS, value: canonical(t, "status") }]);
  b.context([answer.more ? `Older revisions: ${fullTextLine(t, options, "see")}` : fullTextLine(t, options)]);
  return {
    text: `${t.namespace}/${t.release} on ${t.cluster}: ${answer.revisions.length} revisions`,
    blocks: b.blocks,
  };
}

function listMessage(answer: Extract<ChatAnswer, { kind: "list" }>, options: SlackRenderOptions): SlackMessage {
  const t = answer.target;
  const b = new Builder(0, 0);
  b.header(`Releases on ${t.cluster}${t.namespace ? ` in ${t.namespace}` : ""}`);
  if (answer.releases.length === 0) b.section("No releases.");
  else {
    const lines = renderHelmList(answer.releases).trimEnd().split("\n");
    const fitted = fitCode("", lines[0], lines.slice(1), L.text, (hidden) => `…and ${hidden} more releases`);
    if (fitted) b.section(fitted.text.replace(/^\n/, ""));
  }
  b.context([answer.more ? `More releases: ${fullTextLine(t, options, "see")}` : fullTextLine(t, options)]);
  return { text: `${answer.releases.length} releases on ${t.cluster}`, blocks: b.blocks };
}

/** Every text of a message, for limit checks (tests, and the poster's last-resort fallback). */
export function messageTexts(message: SlackMessage): { header: string[]; texts: string[]; fields: string[] } {
  const out = { header: [] as string[], texts: [] as string[], fields: [] as string[] };
  for (const block of message.blocks) {
    if (block.type === "header") out.header.push(block.text.text);
    if (block.type === "section") {
      if (block.text) out.texts.push(block.text.text);
      for (const f of block.fields ?? []) out.fields.push(f.text);
    }
    if (block.type === "context") for (const e of block.elements) out.texts.push(e.text);
  }
  return out;
}
