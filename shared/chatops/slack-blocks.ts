/**
 * Chat answers as Slack Block Kit messages (status in slack-status.ts; history,
 * list, fleet, timeline, help, usage, denial and errors here), always within
 * Slack's limits; what does not fit is summarised with the API path that gives
 * the full text.
 */
import { renderHelmHistory, renderHelmList } from "../render/tables/release-tables.ts";
import type { ChatAnswer } from "./chat-answer.ts";
import { fleetLines, timelineLines } from "./history-views.ts";
import { clip, escapeMrkdwn, fitCode, SLACK_LIMITS as L } from "./limits.ts";
import type { ResolvedCommand } from "./resolve.ts";
import {
  ACTION_STATUS,
  Builder,
  canonical,
  fullTextLine,
  HEALTH_EMOJI,
  type SlackMessage,
  type SlackRenderOptions,
} from "./slack-builder.ts";
import { statusMessage } from "./slack-status.ts";

export {
  ACTION_HISTORY,
  ACTION_REFRESH,
  ACTION_STATUS,
  HEALTH_EMOJI,
  MAX_GROUP_ROWS,
  type SlackBlock,
  type SlackMessage,
  type SlackRenderOptions,
} from "./slack-builder.ts";

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
    case "reliability": {
      const t = answer.target;
      const b = new Builder(0, 0);
      const subject = t.release ? `${t.namespace}/${t.release}` : t.namespace ? `namespace ${t.namespace}` : "releases";
      b.header(`Reliability of ${subject} on ${t.cluster}`);
      const fitted = fitCode(
        "",
        answer.lines[0],
        answer.lines.slice(1),
        L.text,
        (hidden) => `…and ${hidden} more lines`,
      );
      if (fitted) b.section(fitted.text.replace(/^\n/, ""));
      b.context([fullTextLine(t, options)]);
      return { text: answer.lines[0], blocks: b.blocks };
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
    case "reliability":
      return `computing the reliability of ${target.release ? `${target.namespace}/${target.release}` : target.namespace ? `namespace ${target.namespace}` : "every audited release"} on ${target.cluster}…`;
    case "help":
      return "";
  }
}

function historyMessage(answer: Extract<ChatAnswer, { kind: "history" }>, options: SlackRenderOptions): SlackMessage {
  const t = answer.target;
  const b = new Builder(0, 0);
  b.header(`${t.namespace}/${t.release} history on ${t.cluster}`);
  // Chat names who created each revision (docs/who.md): a WHO column when any is known, the public identity only.
  const lines = renderHelmHistory(answer.revisions, { who: answer.revisions.some((r) => r.who) })
    .trimEnd()
    .split("\n");
  const fitted = fitCode("", lines[0], lines.slice(1), L.text, (hidden) => `…and ${hidden} older revisions`, "last");
  if (fitted) b.section(fitted.text.replace(/^\n/, ""));
  b.buttons([{ text: "Status", action: ACTION_STATUS, value: canonical(t, "status") }]);
  b.context([
    ...(answer.auditLogging ? [escapeMrkdwn(clip(answer.auditLogging, 300))] : []),
    answer.more ? `Older revisions: ${fullTextLine(t, options, "see")}` : fullTextLine(t, options),
  ]);
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
