/**
 * The chat platforms as data: one record per platform says everything the product knows about it — its identity
 * (platform-identity.ts: its key in CHATOPS_ACCESS and in every log line, what its bindings call a workspace, the
 * command users type, what a caller's ids look like, how long it waits), how it signs requests and how an answer
 * becomes its message. The webhooks and the worker look a platform up here (the access map and the jobs, in its
 * identity): a platform nobody recorded gets no rules at all (deny), never another platform's. Adding one = its
 * identity, a record here and its webhook adapter (docs/chatops.md).
 */
import type { ChatAnswer } from "./chat-answer.ts";
import { type ChatPlatformIdentity, PLATFORM_IDENTITIES } from "./platform-identity.ts";
import { verifySlackSignature, verifyTeamsSignature } from "./signature.ts";
import { renderSlackAnswer } from "./slack-blocks.ts";
import { renderTeamsAnswer } from "./teams-card.ts";

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

/** A platform's identity (platform-identity.ts), how it signs requests and how an answer becomes its message. */
export interface ChatPlatformRecord extends ChatPlatformIdentity {
  /** Whether the request carries the platform's signature over its exact bytes (replays are the adapter's). */
  verify(request: SignedRequest): boolean;
  /** An answer as the platform's message. */
  render(answer: ChatAnswer, options: RenderOptions, placement: Placement): object;
}

const slack: ChatPlatformRecord = {
  ...PLATFORM_IDENTITIES.slack,
  verify: ({ headers, body, secret, now }) =>
    verifySlackSignature({
      signingSecret: secret,
      signature: headers["x-slack-signature"],
      timestamp: headers["x-slack-request-timestamp"],
      body,
      now,
    }),
  render: (answer, options, placement) => ({
    response_type: placement.public ? "in_channel" : "ephemeral",
    ...(placement.replaceOriginal === undefined ? {} : { replace_original: placement.replaceOriginal }),
    ...renderSlackAnswer(answer, { prefix: options.prefix, apiBaseUrl: options.apiBaseUrl }),
  }),
};

const teams: ChatPlatformRecord = {
  ...PLATFORM_IDENTITIES.teams,
  verify: ({ headers, body, secret }) =>
    verifyTeamsSignature({ securityToken: secret, authorization: headers.authorization, body }),
  // An outgoing webhook's reply always goes to the channel it was asked in.
  render: (answer, options) => renderTeamsAnswer(answer, { apiBaseUrl: options.apiBaseUrl }),
};

/** Every platform the product answers on, by name. */
export const CHAT_PLATFORMS: Readonly<Record<string, ChatPlatformRecord>> = { slack, teams };

/** The record of `name`, or undefined for a platform nobody recorded. */
export function chatPlatform(name: string): ChatPlatformRecord | undefined {
  return Object.hasOwn(CHAT_PLATFORMS, name) ? CHAT_PLATFORMS[name] : undefined;
}
