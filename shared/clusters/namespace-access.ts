/**
 * Which live objects of one release a caller may see (issue #38 item 3): a release's manifest may name objects in
 * other namespaces (or cluster-scoped ones), and the product reads them with its own broad identity; shown to
 * whoever may read the release, that would lend them the product's reads. So objects in a namespace other than
 * the release's are read and shown only to callers granted that namespace:
 *
 * - a scope without grants (IAM callers of the API, the CLI, the audits: the registry is their scope) sees all;
 * - a caller granted every namespace of the cluster ("*") sees all;
 * - any other caller (a dashboard person, a chat channel, narrowed to namespaces) sees the release's namespace and
 *   the namespaces granted; a cluster-scoped object (no namespace) is outside: no namespace grant covers it.
 *
 * The one rule for the live status (objects outside are never read: shared/kube/fetch.ts) and for the history
 * (snapshots keep what the audits read; every read of one filters it: shared/snapshots/visible.ts).
 */
import type { ClusterScope } from "./scope.ts";

/** Whether a live object in `namespace` (undefined: a cluster-scoped object) may be read and shown. */
export type NamespaceAccess = (namespace: string | undefined) => boolean;

/** The caller's access to the objects of a release in `releaseNamespace` of `cluster`; undefined: every object. */
export function namespaceAccess(
  scope: ClusterScope,
  cluster: string,
  releaseNamespace: string,
): NamespaceAccess | undefined {
  if (scope === "any" || !scope.grants) return undefined;
  const granted = scope.grants.namespacesOf(cluster);
  if (granted === "*") return undefined;
  return (namespace) => namespace !== undefined && (namespace === releaseNamespace || granted.has(namespace));
}

/** Whether a status reads log excerpts: `read`, or `not-granted` (the deployment has them, this caller not). */
export type LogAccess = "read" | "not-granted";

/**
 * What a caller may read of one release, decided once per request from its scope: the objects outside the
 * release's namespace (`sees`, above) and the log excerpts (`logs`). Log excerpts: never where the deployment has
 * them off (`logExcerpts`); callers with no grants of their own (IAM: the registry) by the deployment's setting
 * alone; a person or a channel only in a namespace a binding grants with `logs: true` — and told so otherwise.
 */
export function releaseAccess(
  scope: ClusterScope,
  release: { cluster: string; namespace: string },
  logExcerpts: boolean | undefined,
): { sees?: NamespaceAccess; logs?: LogAccess } {
  const sees = namespaceAccess(scope, release.cluster, release.namespace);
  const grants = scope === "any" ? undefined : scope.grants;
  if (!logExcerpts) return { sees };
  return { sees, logs: !grants || grants.allowsLogs(release.cluster, release.namespace) ? "read" : "not-granted" };
}

/** What a caller granted only the release's own namespace sees: the audits' view of what everyone may read. */
export function ownNamespaceOnly(releaseNamespace: string): NamespaceAccess {
  return (namespace) => namespace === releaseNamespace;
}
