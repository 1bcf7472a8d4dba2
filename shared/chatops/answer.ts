/**
 * One chat command, end to end and platform-free: acknowledge it (acknowledge.ts: the channel's defaults,
 * the access map, before anything is read, so a denial never depends on whether the release exists), then
 * answer the job with the same use cases as the API and the CLI, as plain data each platform's record renders
 * (platforms.ts). Errors come back as answers: a chat user gets a sentence, not a 500.
 */
import type { ClusterConnector } from "../clusters/connector.ts";
import { viewerScope } from "../clusters/scope.ts";
import { isDomainError, publicErrorMessage } from "../errors.ts";
import type { KubeReader } from "../kube/reader.ts";
import type { Clock, Logger } from "../ports.ts";
import type { ReleaseSummary } from "../release/model.ts";
import type { HistoryStores } from "../snapshots/history-stores.ts";
import type { FleetEntry } from "../snapshots/model.ts";
import type { ReleaseStore } from "../store/release-store.ts";
import { releaseHistory } from "../usecases/history.ts";
import { listReleases } from "../usecases/list.ts";
import {
  DEFAULT_RELIABILITY_SETTINGS,
  type ReliabilitySettings,
  reliabilityOfRelease,
} from "../usecases/reliability.ts";
import { reliabilityOfScope } from "../usecases/reliability-scope.ts";
import { releaseReliabilityText, scopeReliabilityText } from "../usecases/reliability-text.ts";
import { fleetHealth, listSnapshots } from "../usecases/snapshots.ts";
import { releaseStatus } from "../usecases/status.ts";
import type { AttributionStore } from "../who/attribution.ts";
import type { ChannelAccess } from "./access.ts";
import { acknowledgeCommand, type ChatJobTarget } from "./acknowledge.ts";
import type { ChatAnswer } from "./chat-answer.ts";
import { type ChatCommand, MAX_CHAT_PAGE, type ParseOptions } from "./command.ts";

export type { ResolvedCommand } from "./resolve.ts";
export { apiPathOf, MissingClusterProblem, resolveCommand } from "./resolve.ts";

export interface ChatDeps {
  store: ReleaseStore;
  clusters: ClusterConnector;
  clock: Clock;
  logger: Logger;
  /** Reads clusters for `status` (the composition root's KubeReader). */
  kube: KubeReader;
  /** The status history's snapshots and rollups: offers `fleet`, `timeline` and `reliability` when present. */
  historyStores?: Pick<HistoryStores, "snapshots" | "rollups">;
  /** The audits' period and the history's retention, for `reliability` (default 5 minutes, 90 days). */
  history?: ReliabilitySettings;
  /** Who made each revision and drift write (docs/who.md); chat always sees it as the public audience. */
  attributions?: AttributionStore;
}

export type { ChatAnswer };

/** Snapshots shown by `timeline` (newest first). */
export const TIMELINE_LENGTH = 10;
const UNHEALTHY = "InProgress,Failed,Terminating,NotFound,Unknown";

export interface AnswerOptions extends ParseOptions {
  /** Absolute epoch ms by which a status must be ready (partial report after). */
  deadline?: number;
}

/**
 * The second half of the chat use case: reads what an acknowledged job asks for, with the same use cases as the
 * API and the CLI. Failures come back as answers (a chat user gets a sentence, not a 500).
 */
export async function answerJob(
  deps: ChatDeps,
  target: ChatJobTarget,
  access: ChannelAccess,
  options: AnswerOptions = {},
): Promise<ChatAnswer> {
  try {
    return await run(deps, target, access, options);
  } catch (error) {
    return errorAnswer(deps.logger, error);
  }
}

/** Acknowledge then answer, in one call (what Teams' and the worker's answers amount to). */
export async function answerCommand(
  deps: ChatDeps,
  command: ChatCommand,
  access: ChannelAccess,
  options: AnswerOptions = {},
): Promise<ChatAnswer> {
  const known = deps.clusters.list().map((c) => c.name);
  const acknowledged = acknowledgeCommand(command, access, {
    ...options,
    snapshots: Boolean(deps.historyStores),
    knownClusters: known,
  });
  return "answer" in acknowledged ? acknowledged.answer : answerJob(deps, acknowledged.job, access, options);
}

async function run(
  deps: ChatDeps,
  target: ChatJobTarget,
  access: ChannelAccess,
  options: AnswerOptions,
): Promise<ChatAnswer> {
  switch (target.verb) {
    case "status": {
      // The channel's grants narrow the read: a manifest's objects in namespaces it may not read are not read.
      const report = await releaseStatus(
        {
          store: deps.store,
          kube: deps.kube,
          logger: deps.logger,
          scope: viewerScope(deps.clusters, access),
          attributions: deps.attributions,
        },
        {
          // A channel is public: a writer's name, never an ARN or account id.
          audience: "public",
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
        { store: deps.store, clusters: deps.clusters, attributions: deps.attributions, logger: deps.logger },
        { cluster: target.cluster, namespace: target.namespace, name: target.release },
        { max: target.max, audience: "public" },
      );
      return {
        kind: "history",
        target,
        revisions: page.items,
        more: page.cursor !== undefined,
        ...(page.auditLogging ? { auditLogging: page.auditLogging } : {}),
      };
    }
    case "timeline": {
      const page = await listSnapshots(
        { snapshots: deps.historyStores!.snapshots, clusters: viewerScope(deps.clusters, access), clock: deps.clock },
        { cluster: target.cluster, namespace: target.namespace, name: target.release },
        { limit: TIMELINE_LENGTH },
      );
      return { kind: "timeline", target, snapshots: page.snapshots, more: page.cursor !== undefined };
    }
    case "reliability": {
      const history = {
        snapshots: deps.historyStores!.snapshots,
        rollups: deps.historyStores!.rollups,
        releases: deps.store,
        clusters: deps.clusters,
        clock: deps.clock,
        settings: deps.history ?? DEFAULT_RELIABILITY_SETTINGS,
      };
      const window = { since: target.since };
      const text = target.release
        ? releaseReliabilityText(
            await reliabilityOfRelease(
              history,
              { cluster: target.cluster, namespace: target.namespace!, name: target.release },
              window,
            ),
          )
        : scopeReliabilityText(
            await reliabilityOfScope(history, { ...window, cluster: target.cluster, namespace: target.namespace }),
          );
      return { kind: "reliability", target, lines: text.trimEnd().split("\n") };
    }
    case "fleet": {
      // What is not Current now, in the clusters and namespaces this channel may read only.
      const entries: FleetEntry[] = [];
      let more = false;
      for (const cluster of target.clusters) {
        const page = await fleetHealth(
          { snapshots: deps.historyStores!.snapshots, clusters: deps.clusters, clock: deps.clock },
          { cluster, health: UNHEALTHY, limit: MAX_CHAT_PAGE },
        );
        entries.push(...page.items.filter((e) => access.allows(e.release.cluster, e.release.namespace)));
        more ||= page.cursor !== undefined;
        if (entries.length >= MAX_CHAT_PAGE) break;
      }
      return {
        kind: "fleet",
        target,
        entries: entries.slice(0, MAX_CHAT_PAGE),
        more: more || entries.length > MAX_CHAT_PAGE,
      };
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
  // The API's public message (shared/errors.ts): no ARN, account id or endpoint reaches a channel; the log has
  // the full text.
  const message = publicErrorMessage(error);
  const domain = isDomainError(error) ? error : undefined;
  if (!domain || domain.kind === "internal" || message !== domain.message) {
    logger.error("chat command failed", { code: domain?.code, error: (error as Error)?.message ?? String(error) });
  }
  return {
    kind: "error",
    code: domain && domain.kind !== "internal" ? domain.code : "Internal",
    message,
    errorKind: domain?.kind ?? "internal",
  };
}
