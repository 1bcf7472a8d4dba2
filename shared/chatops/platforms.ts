/**
 * The chat platforms as data: one record per platform says everything the product knows about it — its key in
 * CHATOPS_ACCESS and in every log line, what its bindings call a workspace, the command users type, how it signs
 * requests, what a caller's ids look like, how long it waits and how an answer becomes its message. The access
 * map, the jobs, the webhooks and the worker look a platform up here: a platform nobody recorded gets no rules
 * at all (deny), never another platform's. Adding one = a record here + its webhook adapter (docs/chatops.md).
 */
import type { ChatCaller } from "./access.ts";
import type { ChatAnswer } from "./answer.ts";
import { SLACK_LIMITS } from "./limits.ts";
import { verifySlackSignature, verifyTeamsSignature } from "./signature.ts";
import { renderSlackAnswer } from "./slack-blocks.ts";
import { renderTeamsAnswer, TEAMS_MAX_TEXT } from "./teams-card.ts";

/** Where an answer goes: to the asker only or the channel, and (Slack buttons) instead of the clicked message. */
export interface Placement {
  public: boolean;
  replaceOriginal?: boolean;
}

export interface RenderOptions {
  /** The command users type (CHATOPS_COMMAND), for usage texts; the platform's default otherwise. */
  prefix?: string;
  /** The HTTP API's base URL, printed before API paths. */
  apiBaseUrl?: string;
}

/** A request as the platform sent it: headers lower-cased, the exact body bytes. */
export interface SignedRequest {
  headers: Record<string, string | undefined>;
  body: Buffer;
  /** The platform's shared secret (Slack signing secret, Teams security token). */
  secret: string;
  now: number;
}

export interface ChatPlatformRecord {
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
  /** Whether the request carries the platform's signature over its exact bytes (replays are the adapter's). */
  verify(request: SignedRequest): boolean;
  /** The caller from the platform's ids; undefined when one is missing or malformed. */
  caller(workspace: unknown, channel: unknown, user: unknown): ChatCaller | undefined;
  /** An answer as the platform's message. */
  render(answer: ChatAnswer, options: RenderOptions, placement: Placement): object;
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

const slack: ChatPlatformRecord = {
  name: "slack",
  workspaceField: "team",
  defaultPrefix: "/helm",
  limits: { answerWithinMs: 3000, messageChars: SLACK_LIMITS.total },
  verify: ({ headers, body, secret, now }) =>
    verifySlackSignature({
      signingSecret: secret,
      signature: headers["x-slack-signature"],
      timestamp: headers["x-slack-request-timestamp"],
      body,
      now,
    }),
  caller: callerWith("slack", SLACK_ID),
  render: (answer, options, placement) => ({
    response_type: placement.public ? "in_channel" : "ephemeral",
    ...(placement.replaceOriginal === undefined ? {} : { replace_original: placement.replaceOriginal }),
    ...renderSlackAnswer(answer, { prefix: options.prefix, apiBaseUrl: options.apiBaseUrl }),
  }),
};

const teams: ChatPlatformRecord = {
  name: "teams",
  workspaceField: "tenant",
  defaultPrefix: "@helm",
  limits: { answerWithinMs: 5000, messageChars: TEAMS_MAX_TEXT },
  verify: ({ headers, body, secret }) =>
    verifyTeamsSignature({ securityToken: secret, authorization: headers.authorization, body }),
  caller: callerWith("teams", TEAMS_ID),
  // An outgoing webhook's reply always goes to the channel it was asked in.
  render: (answer, options) => renderTeamsAnswer(answer, { apiBaseUrl: options.apiBaseUrl }),
};

/** Every platform the product answers on, by name. */
export const CHAT_PLATFORMS: Readonly<Record<string, ChatPlatformRecord>> = { slack, teams };

/** The record of `name`, or undefined for a platform nobody recorded. */
export function chatPlatform(name: string): ChatPlatformRecord | undefined {
  return Object.hasOwn(CHAT_PLATFORMS, name) ? CHAT_PLATFORMS[name] : undefined;
}
