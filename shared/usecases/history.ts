/** `helm history` from the store: revision metadata, newest first, one page of at most `max`. */
import { type ClusterScope, releaseInScope } from "../clusters/scope.ts";
import type { ReleaseKey, ReleaseMetadata } from "../release/model.ts";
import type { Page, ReleaseStore } from "../store/release-store.ts";

/** helm history's default --max: the CLI's default and the API's when `?max=` is not given. */
export const HELM_HISTORY_MAX = 256;

export interface ReleaseHistoryOptions {
  /** Page size (Helm's --max); the store caps it. */
  max?: number;
  cursor?: string;
}

/** A revision as history shows it: metadata without the user-supplied values (they can hold credentials). */
export type HistoryEntry = Omit<ReleaseMetadata, "config">;

export async function releaseHistory(
  deps: { store: ReleaseStore; clusters: ClusterScope },
  key: ReleaseKey,
  options: ReleaseHistoryOptions = {},
): Promise<Page<HistoryEntry>> {
  const k = releaseInScope(deps.clusters, key);
  const page = await deps.store.history(k, { limit: options.max, cursor: options.cursor });
  return { ...page, items: page.items.map(({ config: _config, ...revision }) => revision) };
}
