/**
 * Chat answers as a Teams outgoing-webhook reply: `{type: "message", text}`
 * with Markdown, the same content as the Slack message in one text (Teams
 * webhooks allow no buttons but openURL, so the API path is printed instead).
 * Kept under ~20k characters (Teams caps a message at about 28 KB).
 */

import { auditLoggingLine, outsideAccessLine, renderStatusText, storedLine } from "../render/status/text.ts";
import { renderHelmHistory, renderHelmList } from "../render/tables/release-tables.ts";
import { formatAnsiC, isZeroTime } from "../render/time/helm-time.ts";
import { CAUSES_SHOWN } from "../why/causes.ts";
import type { ChatAnswer } from "./chat-answer.ts";
import { fleetLines, timelineLines } from "./history-views.ts";
import { TEAMS_MAX_TEXT } from "./limits.ts";
import { apiPathOf, type ResolvedCommand } from "./resolve.ts";

export interface TeamsMessage {
  type: "message";
  textFormat: "markdown";
  text: string;
}

const HEALTH_MARK: Record<string, string> = {
  Current: "🟢",
  InProgress: "🟡",
  Failed: "🔴",
  Terminating: "🟠",
  NotFound: "⚫",
  Unknown: "⚪",
};

export interface TeamsRenderOptions {
  apiBaseUrl?: string;
}

/** Teams Markdown: HTML-ish characters are entities, a fence must not close the block early. */
function code(text: string): string {
  return `\`\`\`\n${text.replaceAll("```", "`\u200b``").replaceAll("<", "&lt;").replaceAll(">", "&gt;")}\n\`\`\``;
}
function plain(text: string): string {
  return text.replace(/[<>*_`[\]\\]/g, (c) => `\\${c}`);
}

function pathLine(target: ResolvedCommand, options: TeamsRenderOptions, label = "Full text"): string {
  const path = apiPathOf(target);
  return path ? `${label}: \`GET ${(options.apiBaseUrl ?? "").replace(/\/$/, "")}${path}\`` : "";
}

export function renderTeamsAnswer(answer: ChatAnswer, options: TeamsRenderOptions = {}): TeamsMessage {
  return { type: "message", textFormat: "markdown", text: fit(teamsText(answer, options), answer, options) };
}

/** What is known when the cluster is still being read at Teams' deadline. */
export function renderTeamsStillReading(target: ResolvedCommand, options: TeamsRenderOptions = {}): TeamsMessage {
  const what = target.verb === "status" ? `${target.namespace}/${target.release} on ${target.cluster}` : "the answer";
  return {
    type: "message",
    textFormat: "markdown",
    text: `⏳ **still reading** ${plain(what)}: the cluster did not answer within Teams' 5 seconds.\n\n${pathLine(target, options, "See")}`,
  };
}

function teamsText(answer: ChatAnswer, options: TeamsRenderOptions): string {
  switch (answer.kind) {
    case "status": {
      const { report } = answer;
      const r = report.release;
      const deployed =
        r.info.last_deployed && !isZeroTime(r.info.last_deployed) ? formatAnsiC(r.info.last_deployed) : "-";
      const head = [
        `**${plain(`${r.namespace}/${r.name}`)} on ${plain(report.cluster)}**`,
        "",
        `**STATUS** ${plain(r.info.status)} · **REVISION** ${r.version} · **LAST DEPLOYED** ${plain(deployed)} · **HEALTH** ${HEALTH_MARK[report.health.overall] ?? ""} ${report.health.overall}`,
        "",
        plain(`${report.health.ruleset}: ${report.health.message}`),
        ...(report.causes?.length
          ? ["", ...report.causes.slice(0, CAUSES_SHOWN).map((c) => `- ${plain(c.text)}`)]
          : []),
        ...(report.freshness ? ["", plain(storedLine(report.freshness))] : []),
        ...(report.outsideAccess ? ["", plain(outsideAccessLine(report.outsideAccess))] : []),
        ...(report.auditLogging ? ["", plain(auditLoggingLine(report.auditLogging))] : []),
        report.complete ? "" : "\n⏳ some resources were not read in time",
      ];
      // The Helm text without its first lines (already above) and without NOTES (link instead).
      const text = renderStatusText(report)
        .split("\nNOTES:\n")[0]
        .replace(/^[\s\S]*?\nRESOURCES:\n/, "");
      return `${head.join("\n")}\n\n${code(text.trimEnd())}\n\n${pathLine(answer.target, options)}`;
    }
    case "history": {
      const t = answer.target;
      // Chat names who created each revision (docs/who.md): the WHO column and, once, logging being off.
      const table = renderHelmHistory(answer.revisions, {
        who: answer.revisions.some((r) => r.who),
        auditLogging: answer.auditLogging,
      });
      return `**${plain(`${t.namespace}/${t.release}`)} history on ${plain(t.cluster)}**\n\n${code(table.trimEnd())}\n\n${pathLine(t, options)}`;
    }
    case "list": {
      const t = answer.target;
      const body = answer.releases.length === 0 ? "No releases." : code(renderHelmList(answer.releases).trimEnd());
      return `**Releases on ${plain(t.cluster)}${t.namespace ? ` in ${plain(t.namespace)}` : ""}**\n\n${body}\n\n${pathLine(t, options, answer.more ? "More" : "Full text")}`;
    }
    case "fleet": {
      const t = answer.target;
      const body =
        answer.entries.length === 0
          ? "🟢 Every release the last audit saw is Current."
          : code(fleetLines(answer.entries).join("\n"));
      return `**Unhealthy now${t.cluster ? ` on ${plain(t.cluster)}` : ""}**\n\n${body}\n\n${pathLine(t, options)}`;
    }
    case "reliability": {
      const t = answer.target;
      const subject = t.release ? `${t.namespace}/${t.release}` : t.namespace ? `namespace ${t.namespace}` : "releases";
      return `**Reliability of ${plain(subject)} on ${plain(t.cluster)}**\n\n${code(answer.lines.join("\n"))}\n\n${pathLine(t, options)}`;
    }
    case "timeline": {
      const t = answer.target;
      const body =
        answer.snapshots.length === 0 ? "No snapshots yet." : code(timelineLines(answer.snapshots).join("\n"));
      return `**${plain(`${t.namespace}/${t.release}`)} timeline on ${plain(t.cluster)}**\n\n${body}\n\n${pathLine(t, options)}`;
    }
    case "help":
      return `**helm status in Teams**\n\n${code(answer.usage.split("\n\n")[0].replaceAll("/helm", "@helm"))}\n\n${
        answer.clusters.length === 0
          ? "This channel may not read any cluster: an admin adds it to CHATOPS_ACCESS."
          : `This channel may read ${plain(answer.clusters.join(", "))}.`
      }`;
    case "usage":
      return `⚠️ ${plain(answer.error)}\n\n${code(answer.usage.split("\n\n")[0].replaceAll("/helm", "@helm"))}`;
    case "denied":
      return `⛔ ${plain(answer.message)}`;
    case "error":
      return `❌ ${plain(answer.message)} (\`${answer.code}\`)`;
  }
}

function fit(text: string, answer: ChatAnswer, options: TeamsRenderOptions): string {
  if (text.length <= TEAMS_MAX_TEXT) return text;
  const tail = `\n\`\`\`\n…cut at ${TEAMS_MAX_TEXT} characters. ${"target" in answer ? pathLine(answer.target, options) : ""}`;
  return text.slice(0, TEAMS_MAX_TEXT - tail.length).replace(/\n[^\n]*$/, "") + tail;
}
