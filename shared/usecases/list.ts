/** `helm list` from the store: the latest revision of each release matching the filter, one page. */
import { type ClusterScope, inScope, requireKnownCluster } from "../clusters/scope.ts";
import type { ReleaseStatus, ReleaseSummary } from "../release/model.ts";
import { validateClusterName, validateNamespace, validateStatus } from "../release/validation.ts";
import type { Page, ReleaseStore } from "../store/release-store.ts";

export interface ListReleasesInput {
  cluster?: string;
  namespace?: string;
  status?: ReleaseStatus;
  limit?: number;
  cursor?: string;
}

export async function listReleases(
  deps: { store: ReleaseStore; clusters: ClusterScope },
  input: ListReleasesInput = {},
): Promise<Page<ReleaseSummary>> {
  const filter = {
    cluster: input.cluster === undefined ? undefined : validateClusterName(input.cluster),
    namespace: input.namespace === undefined ? undefined : validateNamespace(input.namespace),
    status: input.status === undefined ? undefined : validateStatus(input.status),
  };
  if (filter.cluster !== undefined) requireKnownCluster(deps.clusters, filter.cluster, filter.namespace);
  const page = await deps.store.listReleases(filter, { limit: input.limit, cursor: input.cursor });
  // A listing across clusters shows only the clusters in scope.
  if (deps.clusters === "any") return page;
  return { ...page, items: page.items.filter((release) => inScope(deps.clusters, release.cluster, release.namespace)) };
}
