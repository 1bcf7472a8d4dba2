/**
 * The pieces every Slack message is built from: Block Kit types, the action ids
 * of the buttons, and a builder that checks Slack's limits (limits.ts) on every
 * block it adds while keeping room for the blocks that close a message.
 */
import type { HealthStatus } from "../health/index.ts";
import { clip, escapeMrkdwn, SLACK_LIMITS as L } from "./limits.ts";
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
export class Builder {
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

/** "Full text: `GET …`": the API path that gives what a message leaves out. */
export function fullTextLine(target: ResolvedCommand, options: SlackRenderOptions, what = "Full text"): string {
  const path = apiPathOf(target);
  return path ? `${what}: \`GET ${escapeMrkdwn((options.apiBaseUrl ?? "").replace(/\/$/, "") + path)}\`` : "";
}

/** The canonical command line a button carries (parsed and authorised again when clicked). */
export function canonical(target: ResolvedCommand, verb: "status" | "history"): string {
  if (target.verb !== "status" && target.verb !== "history") return "";
  const revision =
    verb === "status" && target.verb === "status" && target.revision ? ` --revision ${target.revision}` : "";
  return `${verb} ${target.release} -n ${target.namespace} --cluster ${target.cluster}${revision}`;
}
