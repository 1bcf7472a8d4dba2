/**
 * One chat command, end to end and platform-free: resolve the channel's
 * defaults, authorise against the access map (before anything is read, so a
 * denial never depends on whether the release exists), run the same use cases
 * as the API and the CLI, and return plain data the Slack and Teams renderers
 * shape. Errors come back as answers: a chat user gets a sentence, not a 500.
 */
import type { ClusterConnector } from "../clusters/connector.ts";
import { isDomainError } from "../errors.ts";
import type { KubeReader } from "../kube/reader.ts";
import type { Clock, Logger } from "../ports.ts";
import type { ReleaseMetadata, ReleaseSummary } from "../release/model.ts";
import type { StatusReport } from "../status/report.ts";
import type { ReleaseStore } from "../store/release-store.ts";
import { releaseHistory } from "../usecases/history.ts";
import { listReleases } from "../usecases/list.ts";
import { releaseStatus } from "../usecases/status.ts";
import type { ChannelAccess } from "./access.ts";
import { type ChatCommand, MAX_CHAT_PAGE, type ParseOptions, usageText } from "./command.ts";
import { ChatAccessDeniedError } from "./errors.ts";

export interface ChatDeps {
  store: ReleaseStore;
  clusters: ClusterConnector;
  clock: Clock;
  logger: Logger;
  /** Reads clusters for `status` (the composition root's KubeReader). */
  kube: KubeReader;
}

/** A command with the channel's defaults applied and access checked. */
export type ResolvedCommand =
  | { verb: "status"; cluster: string; namespace: string; release: string; revision?: number }
  | { verb: "history"; cluster: string; namespace: string; release: string; max: number }
  | { verb: "list"; cluster: string; namespace?: string; namespaces: "*" | Set<string> }
  | { verb: "help" };

export type ChatAnswer =
  | { kind: "status"; target: Extract<ResolvedCommand, { verb: "status" }>; report: StatusReport }
  | {
      kind: "history";
      target: Extract<ResolvedCommand, { verb: "history" }>;
      revisions: ReleaseMetadata[];
      more: boolean;
    }
  | { kind: "list"; target: Extract<ResolvedCommand, { verb: "list" }>; releases: ReleaseSummary[]; more: boolean }
  | { kind: "help"; usage: string; clusters: string[]; defaults: { cluster?: string; namespace?: string } }
  | { kind: "usage"; error: string; usage: string }
  | { kind: "denied"; message: string }
  | { kind: "error"; code: string; message: string; errorKind: string };

/** Helm's default namespace when neither the command nor the channel gives one. */
export const DEFAULT_NAMESPACE = "default";

export class MissingClusterProblem extends Error {}

/**
 * Applies the channel's defaults and checks access. Throws ChatAccessDeniedError
 * (a 403-kind DomainError) or MissingClusterProblem; never reads anything.
 */
export function resolveCommand(
  command: ChatCommand,
  access: ChannelAccess,
  knownClusters: readonly string[],
): ResolvedCommand {
  if (command.verb === "help") return { verb: "help" };
  if (command.verb === "fleet" || command.verb === "timeline") {
    throw new MissingClusterProblem(`${command.verb} is not available in this deployment`);
  }
  if (access.none) throw new ChatAccessDeniedError();
  const cluster = command.cluster ?? access.defaults.cluster ?? onlyCluster(access, knownClusters);
  if (!cluster) {
    throw new MissingClusterProblem("no --cluster given and this channel has no default cluster: add --cluster NAME");
  }
  if (command.verb === "list") {
    const namespace = command.allNamespaces ? undefined : (command.namespace ?? access.defaults.namespace);
    if (!access.allows(cluster, namespace)) throw new ChatAccessDeniedError();
    return namespace === undefined
      ? { verb: "list", cluster, namespaces: access.namespacesOf(cluster) }
      : { verb: "list", cluster, namespace, namespaces: new Set([namespace]) };
  }
  const namespace = command.namespace ?? access.defaults.namespace ?? DEFAULT_NAMESPACE;
  if (!access.allows(cluster, namespace)) throw new ChatAccessDeniedError();
  if (command.verb === "status") {
    return command.revision === undefined
      ? { verb: "status", cluster, namespace, release: command.release }
      : { verb: "status", cluster, namespace, release: command.release, revision: command.revision };
  }
  return { verb: "history", cluster, namespace, release: command.release, max: command.max ?? 10 };
}

/** A channel that may read exactly one registry cluster needs no --cluster. */
function onlyCluster(access: ChannelAccess, known: readonly string[]): string | undefined {
  const allowed = access.clustersOf(known);
  return allowed.length === 1 ? allowed[0] : undefined;
}

export interface AnswerOptions extends ParseOptions {
  /** Absolute epoch ms by which a status must be ready (partial report after). */
  deadline?: number;
}

export async function answerCommand(
  deps: ChatDeps,
  command: ChatCommand,
  access: ChannelAccess,
  options: AnswerOptions = {},
): Promise<ChatAnswer> {
  const known = deps.clusters.list().map((c) => c.name);
  let target: ResolvedCommand;
  try {
    target = resolveCommand(command, access, known);
  } catch (error) {
    if (error instanceof ChatAccessDeniedError) return { kind: "denied", message: error.message };
    if (error instanceof MissingClusterProblem)
      return { kind: "usage", error: error.message, usage: usageText(options) };
    throw error;
  }
  try {
    return await run(deps, target, access, known, options);
  } catch (error) {
    return errorAnswer(deps.logger, error);
  }
}

async function run(
  deps: ChatDeps,
  target: ResolvedCommand,
  access: ChannelAccess,
  known: readonly string[],
  options: AnswerOptions,
): Promise<ChatAnswer> {
  switch (target.verb) {
    case "help":
      return { kind: "help", usage: usageText(options), clusters: access.clustersOf(known), defaults: access.defaults };
    case "status": {
      const report = await releaseStatus(
        { store: deps.store, kube: deps.kube, logger: deps.logger },
        {
          cluster: target.cluster,
          namespace: target.namespace,
          name: target.release,
          revision: target.revision,
          deadline: options.deadline,
        },
      );
      return { kind: "status", target, report };
    }
    case "history": {
      const page = await releaseHistory(
        { store: deps.store, clusters: deps.clusters },
        { cluster: target.cluster, namespace: target.namespace, name: target.release },
        { max: target.max },
      );
      return { kind: "history", target, revisions: page.items, more: page.cursor !== undefined };
    }
    case "list": {
      // A channel limited to some namespaces sees only those: filtered here, page by page, within a bound.
      const releases: ReleaseSummary[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 10; pages++) {
        const page = await listReleases(
          { store: deps.store, clusters: deps.clusters },
          { cluster: target.cluster, namespace: target.namespace, limit: MAX_CHAT_PAGE, cursor },
        );
        for (const item of page.items) {
          if (target.namespaces === "*" || target.namespaces.has(item.namespace)) releases.push(item);
        }
        cursor = page.cursor;
        if (!cursor || releases.length >= MAX_CHAT_PAGE) break;
      }
      return {
        kind: "list",
        target,
        releases: releases.slice(0, MAX_CHAT_PAGE),
        more: releases.length > MAX_CHAT_PAGE || cursor !== undefined,
      };
    }
  }
}

function errorAnswer(logger: Logger, error: unknown): ChatAnswer {
  if (isDomainError(error) && error.kind !== "internal") {
    return { kind: "error", code: error.code, message: error.message, errorKind: error.kind };
  }
  logger.error("chat command failed", { error: (error as Error)?.message ?? String(error) });
  return {
    kind: "error",
    code: "Internal",
    message: "internal error: the answer could not be built",
    errorKind: "internal",
  };
}

/** The HTTP API path that gives the full text of a resolved command. */
export function apiPathOf(target: ResolvedCommand): string | undefined {
  const e = encodeURIComponent;
  switch (target.verb) {
    case "status":
      return `/clusters/${e(target.cluster)}/namespaces/${e(target.namespace)}/releases/${e(target.release)}/status${target.revision ? `?revision=${target.revision}` : ""}`;
    case "history":
      return `/clusters/${e(target.cluster)}/namespaces/${e(target.namespace)}/releases/${e(target.release)}/history`;
    case "list":
      return target.namespace
        ? `/clusters/${e(target.cluster)}/namespaces/${e(target.namespace)}/releases`
        : `/clusters/${e(target.cluster)}/releases`;
    default:
      return undefined;
  }
}
