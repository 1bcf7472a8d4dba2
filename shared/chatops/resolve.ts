/**
 * A chat command against the caller's access: the channel's defaults applied,
 * the cluster and namespace checked, before anything is read (so a denial
 * never depends on whether the release exists). Pure: the Slack ingress uses
 * it without loading the store or the cluster client.
 */
import type { ChannelAccess } from "./access.ts";
import type { ChatCommand } from "./command.ts";
import { ChatAccessDeniedError } from "./errors.ts";

/** A command with the channel's defaults applied and access checked. */
export type ResolvedCommand =
  | { verb: "status"; cluster: string; namespace: string; release: string; revision?: number }
  | { verb: "history"; cluster: string; namespace: string; release: string; max: number }
  | { verb: "list"; cluster: string; namespace?: string; namespaces: "*" | Set<string> }
  | { verb: "timeline"; cluster: string; namespace: string; release: string }
  /** `cluster` when one was asked for; `clusters` are the ones to read (all the channel may read otherwise). */
  | { verb: "fleet"; cluster?: string; clusters: string[] }
  /** Without `release`: every audited release of the cluster (or of `namespace` in it) the channel may read. */
  | { verb: "reliability"; cluster: string; namespace?: string; release?: string; since?: string }
  | { verb: "help" };

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
  options: { snapshots?: boolean } = {},
): ResolvedCommand {
  if (command.verb === "help") return { verb: "help" };
  if (
    (command.verb === "fleet" || command.verb === "timeline" || command.verb === "reliability") &&
    !options.snapshots
  ) {
    throw new MissingClusterProblem(`${command.verb} is not available in this deployment (no status history)`);
  }
  if (access.none) throw new ChatAccessDeniedError();
  if (command.verb === "fleet") {
    if (command.cluster !== undefined) {
      if (!access.allows(command.cluster)) throw new ChatAccessDeniedError();
      return { verb: "fleet", cluster: command.cluster, clusters: [command.cluster] };
    }
    const clusters = access.clustersOf(knownClusters);
    if (clusters.length === 0) throw new ChatAccessDeniedError();
    return { verb: "fleet", clusters };
  }
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
  if (command.verb === "reliability" && command.release === undefined) {
    // A cluster-wide report adds up every namespace: only for a channel that may read them all.
    const namespace = command.namespace ?? access.defaults.namespace;
    if (namespace === undefined ? access.namespacesOf(cluster) !== "*" : !access.allows(cluster, namespace)) {
      throw new ChatAccessDeniedError();
    }
    const since = command.since !== undefined ? { since: command.since } : {};
    return namespace === undefined
      ? { verb: "reliability", cluster, ...since }
      : { verb: "reliability", cluster, namespace, ...since };
  }
  const namespace = command.namespace ?? access.defaults.namespace ?? DEFAULT_NAMESPACE;
  if (!access.allows(cluster, namespace)) throw new ChatAccessDeniedError();
  if (command.verb === "reliability") {
    const since = command.since !== undefined ? { since: command.since } : {};
    return { verb: "reliability", cluster, namespace, release: command.release, ...since };
  }
  if (command.verb === "status") {
    return command.revision === undefined
      ? { verb: "status", cluster, namespace, release: command.release }
      : { verb: "status", cluster, namespace, release: command.release, revision: command.revision };
  }
  if (command.verb === "timeline") return { verb: "timeline", cluster, namespace, release: command.release };
  return { verb: "history", cluster, namespace, release: command.release, max: command.max ?? 10 };
}

/** A channel that may read exactly one registry cluster needs no --cluster. */
function onlyCluster(access: ChannelAccess, known: readonly string[]): string | undefined {
  const allowed = access.clustersOf(known);
  return allowed.length === 1 ? allowed[0] : undefined;
}

/** The HTTP API path that gives the full text of a resolved command. */
export function apiPathOf(target: ResolvedCommand): string | undefined {
  const e = encodeURIComponent;
  switch (target.verb) {
    case "status":
      return `/clusters/${e(target.cluster)}/namespaces/${e(target.namespace)}/releases/${e(target.release)}/status${target.revision ? `?revision=${target.revision}` : ""}`;
    case "history":
      return `/clusters/${e(target.cluster)}/namespaces/${e(target.namespace)}/releases/${e(target.release)}/history`;
    case "timeline":
      return `/clusters/${e(target.cluster)}/namespaces/${e(target.namespace)}/releases/${e(target.release)}/snapshots`;
    case "fleet":
      return `/fleet/health${target.cluster ? `?cluster=${e(target.cluster)}` : ""}`;
    case "reliability": {
      if (target.release) {
        const since = target.since ? `?since=${e(target.since)}` : "";
        return `/clusters/${e(target.cluster)}/namespaces/${e(target.namespace ?? DEFAULT_NAMESPACE)}/releases/${e(target.release)}/reliability${since}`;
      }
      const namespace = target.namespace ? `&namespace=${e(target.namespace)}` : "";
      return `/fleet/reliability?cluster=${e(target.cluster)}${namespace}${target.since ? `&since=${e(target.since)}` : ""}`;
    }
    case "list":
      return target.namespace
        ? `/clusters/${e(target.cluster)}/namespaces/${e(target.namespace)}/releases`
        : `/clusters/${e(target.cluster)}/releases`;
    default:
      return undefined;
  }
}
