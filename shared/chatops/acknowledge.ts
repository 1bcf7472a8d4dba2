/**
 * The first half of the one chat use case, on every platform: a command against the caller's access, answered at
 * once when the answer needs nothing read (usage, help, a denial — the same whether or not the release exists),
 * otherwise the resolved job for `answerJob` (answer.ts) to read and answer. Pure and fast: the Slack webhook
 * runs it within Slack's 3 s without loading the store or a cluster client; the worker runs it again on the job
 * (the queue is not trusted to widen what is read); Teams runs it once and answers the job inline.
 */
import type { ChannelAccess } from "./access.ts";
import type { ChatAnswer } from "./chat-answer.ts";
import { type ChatCommand, type ParseOptions, parseChatCommand, usageText } from "./command.ts";
import { ChatAccessDeniedError } from "./errors.ts";
import { MissingClusterProblem, type ResolvedCommand, resolveCommand } from "./resolve.ts";

/** A command that must read something: what was asked, resolved against the channel's access. */
export type ChatJobTarget = Exclude<ResolvedCommand, { verb: "help" }>;

export type Acknowledged =
  /** Answered now (`answer.kind` is usage, help or denied); `command` when the text parsed. */
  | { answer: Extract<ChatAnswer, { kind: "usage" | "help" | "denied" }>; command?: ChatCommand }
  | { job: ChatJobTarget; command: ChatCommand };

export interface AcknowledgeOptions extends ParseOptions {
  /** The registry's cluster names (a channel allowed exactly one needs no --cluster). */
  knownClusters: readonly string[];
}

/** Parses `text` and acknowledges the command. */
export function acknowledge(text: string, access: ChannelAccess, options: AcknowledgeOptions): Acknowledged {
  const parsed = parseChatCommand(text, options);
  if (!parsed.ok) return { answer: { kind: "usage", error: parsed.error, usage: parsed.usage } };
  return acknowledgeCommand(parsed.command, access, options);
}

export function acknowledgeCommand(
  command: ChatCommand,
  access: ChannelAccess,
  options: AcknowledgeOptions,
): Acknowledged {
  try {
    const target = resolveCommand(command, access, options.knownClusters, options);
    if (target.verb !== "help") return { job: target, command };
    const help = {
      kind: "help" as const,
      usage: usageText(options),
      clusters: access.clustersOf(options.knownClusters),
      defaults: access.defaults,
    };
    return { answer: help, command };
  } catch (error) {
    if (error instanceof ChatAccessDeniedError) return { answer: { kind: "denied", message: error.message }, command };
    if (error instanceof MissingClusterProblem) {
      return { answer: { kind: "usage", error: error.message, usage: usageText(options) }, command };
    }
    throw error;
  }
}
