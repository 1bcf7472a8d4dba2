/** `helm list` from the store: the latest revision of each release matching the filter, one page. */
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
  deps: { store: ReleaseStore },
  input: ListReleasesInput = {},
): Promise<Page<ReleaseSummary>> {
  const filter = {
    cluster: input.cluster === undefined ? undefined : validateClusterName(input.cluster),
    namespace: input.namespace === undefined ? undefined : validateNamespace(input.namespace),
    status: input.status === undefined ? undefined : validateStatus(input.status),
  };
  return deps.store.listReleases(filter, { limit: input.limit, cursor: input.cursor });
}
