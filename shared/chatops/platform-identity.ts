/**
 * Who a chat platform is, apart from how it renders or signs: its name (a key of CHATOPS_ACCESS, of chat jobs and
 * of every log line), what its bindings call a workspace, the command users type, how long it waits, and what a
 * caller's ids look like. The access map and the jobs read only this; the full record with `verify` and `render`
 * is platforms.ts (the webhooks and the worker use it), so no rule about who may ask depends on a renderer.
 */
import { SLACK_LIMITS, TEAMS_MAX_TEXT } from "./limits.ts";

/** A platform's name: a key of PLATFORM_IDENTITIES. */
export type ChatPlatform = string;

export interface ChatCaller {
  platform: ChatPlatform;
  /** The platform's workspace id (Slack team, Teams tenant). */
  team: string;
  channel: string;
  user: string;
}

export interface ChatPlatformIdentity {
  /** Its key in CHATOPS_ACCESS, `ChatCaller.platform`, chat jobs and log lines. */
  readonly name: string;
  /** What its CHATOPS_ACCESS bindings call the workspace a channel belongs to (Slack team, Teams tenant). */
  readonly workspaceField: string;
  /** The command users type when CHATOPS_COMMAND does not say. */
  readonly defaultPrefix: string;
  readonly limits: {
    /** How long the platform waits for the webhook's HTTP answer. */
    answerWithinMs: number;
    /** The most characters of text one message may carry (Slack: all block texts together). */
    messageChars: number;
  };
  /** The caller from the platform's ids; undefined when one is missing or malformed. */
  caller(workspace: unknown, channel: unknown, user: unknown): ChatCaller | undefined;
}

const SLACK_ID = /^[A-Z0-9][A-Z0-9_-]{0,63}$/i;
/** Teams ids are opaque (AAD object ids, `19:…@thread.tacv2`, `29:…`): bounded, printable, no spaces. */
const TEAMS_ID = /^[\x21-\x7e]{1,256}$/;

function callerWith(platform: string, pattern: RegExp) {
  return (workspace: unknown, channel: unknown, user: unknown): ChatCaller | undefined => {
    const ids = [workspace, channel, user];
    if (!ids.every((id) => typeof id === "string" && pattern.test(id))) return undefined;
    return { platform, team: workspace as string, channel: channel as string, user: user as string };
  };
}

/** Every platform the product answers on, by name. */
export const PLATFORM_IDENTITIES: Readonly<Record<string, ChatPlatformIdentity>> = {
  slack: {
    name: "slack",
    workspaceField: "team",
    defaultPrefix: "/helm",
    limits: { answerWithinMs: 3000, messageChars: SLACK_LIMITS.total },
    caller: callerWith("slack", SLACK_ID),
  },
  teams: {
    name: "teams",
    workspaceField: "tenant",
    defaultPrefix: "@helm",
    limits: { answerWithinMs: 5000, messageChars: TEAMS_MAX_TEXT },
    caller: callerWith("teams", TEAMS_ID),
  },
};

/** The identity of `name`, or undefined for a platform nobody recorded (its callers get no rules: deny). */
export function platformIdentity(name: string): ChatPlatformIdentity | undefined {
  return Object.hasOwn(PLATFORM_IDENTITIES, name) ? PLATFORM_IDENTITIES[name] : undefined;
}
