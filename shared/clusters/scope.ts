import { AccessDeniedError } from "../access/errors.ts";
import type { Grants } from "../access/grants.ts";
import type { ReleaseKey } from "../release/model.ts";
import { validateReleaseKey } from "../release/validation.ts";
import type { ClusterSummary, RegistryObjectives } from "./connector.ts";
import { UnknownClusterError } from "./errors.ts";

/**
 * Which clusters (and namespaces) a use case may serve or accept data for. Every use case that takes a cluster
 * name checks it here before it reads or writes anything, so no adapter (API, CLI, audit worker, chatops, the
 * dashboard) can forget it.
 *
 * - A registry (`{ list() }`, which every ClusterConnector is): only its clusters; any other is an
 *   UnknownClusterError (404), even for reads that only touch DynamoDB.
 * - A registry narrowed to a person's `grants` (viewerScope: the dashboard's signed-in caller): first the
 *   grants (an AccessDeniedError, 403, the same whether the cluster exists or not), then the registry.
 * - `"any"`: no registry is configured, the store alone defines the clusters. Only the CLI passes it, and only
 *   when neither CLUSTERS nor CLUSTERS_FILE is set (its embedded/local mode: `--cluster local`). The rule is
 *   "a registry is enforced whenever one is configured".
 */
export type ClusterScope = { list(): ClusterSummary[]; readonly grants?: Grants } | "any";

/** `cluster` (and `namespace`, when the read is about one) must be in scope. */
export function requireKnownCluster(scope: ClusterScope, cluster: string, namespace?: string): void {
  if (scope === "any") return;
  const known = scope.list().map((entry) => entry.name);
  // The grants first: a person is refused alike whether the cluster exists or not.
  if (scope.grants && !scope.grants.allows(cluster, namespace)) throw new AccessDeniedError();
  if (!known.includes(cluster)) throw new UnknownClusterError(cluster, { known });
}

/**
 * A use case's first step for one release: its names validated (400), then the caller's grants on its cluster and
 * namespace (403, viewerScope), then its cluster in the registry (404). A read of a revision's content (`helm
 * status`, `helm get manifest`) words a bad release name as Helm does there (`releaseContent: …`), first.
 */
export function releaseInScope(
  scope: ClusterScope,
  key: ReleaseKey,
  read: "content" | "stored" = "stored",
): ReleaseKey {
  const release = validateReleaseKey(key, read);
  requireKnownCluster(scope, release.cluster, release.namespace);
  return release;
}

/** Whether `cluster` (and `namespace`) is in scope, for filtering listings that span clusters. */
export function inScope(scope: ClusterScope, cluster: string, namespace?: string): boolean {
  if (scope === "any") return true;
  if (scope.grants && !scope.grants.allows(cluster, namespace)) return false;
  return scope.list().some((entry) => entry.name === cluster);
}

/** A registry's entries as a scope (names only are compared). */
export function registryScope(entries: readonly ClusterSummary[]): ClusterScope {
  return { list: () => entries.map(({ name, region, slo }) => ({ name, region, ...(slo ? { slo } : {}) })) };
}

/** The registry's SLO objectives for `cluster` (none without a registry or an `slo` field). */
export function registryObjectives(
  registry: { list(): ClusterSummary[] } | "any",
  cluster: string,
): RegistryObjectives | undefined {
  return registry === "any" ? undefined : registry.list().find((entry) => entry.name === cluster)?.slo;
}

/** The registry as one person may see it: only the clusters their grants reach, every check by their grants. */
export function viewerScope(registry: { list(): ClusterSummary[] }, grants: Grants): ClusterScope {
  return { list: () => registry.list().filter((entry) => grants.allows(entry.name)), grants };
}
