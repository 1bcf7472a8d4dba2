import type { ReleaseKey } from "../release/model.ts";
import { validateReleaseKey } from "../release/validation.ts";
import type { ClusterSummary } from "./connector.ts";
import { UnknownClusterError } from "./errors.ts";

/**
 * Which clusters a use case may serve or accept data for. Every use case that takes a cluster name checks it
 * here before it reads or writes anything, so no adapter (API, CLI, audit worker, chatops) can forget it.
 *
 * - A registry (`{ list() }`, which every ClusterConnector is): only its clusters; any other is an
 *   UnknownClusterError (404), even for reads that only touch DynamoDB.
 * - `"any"`: no registry is configured, the store alone defines the clusters. Only the CLI passes it, and only
 *   when neither CLUSTERS nor CLUSTERS_FILE is set (its embedded/local mode: `--cluster local`). The rule is
 *   "a registry is enforced whenever one is configured".
 */
export type ClusterScope = { list(): ClusterSummary[] } | "any";

export function requireKnownCluster(scope: ClusterScope, cluster: string): void {
  if (scope === "any") return;
  const known = scope.list().map((entry) => entry.name);
  if (!known.includes(cluster)) throw new UnknownClusterError(cluster, { known });
}

/** A use case's first step for one release: its names validated (400), then its cluster in scope (404). */
export function releaseInScope(scope: ClusterScope, key: ReleaseKey): ReleaseKey {
  const release = validateReleaseKey(key);
  requireKnownCluster(scope, release.cluster);
  return release;
}

/** Whether `cluster` is in scope, for filtering listings that span clusters. */
export function inScope(scope: ClusterScope, cluster: string): boolean {
  return scope === "any" || scope.list().some((entry) => entry.name === cluster);
}

/** A registry's entries as a scope (names only are compared). */
export function registryScope(entries: readonly ClusterSummary[]): ClusterScope {
  return { list: () => entries.map(({ name, region }) => ({ name, region })) };
}
