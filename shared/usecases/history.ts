/** `helm history` from the store: revision metadata, newest first, one page of at most `max`. */
import { type ClusterScope, releaseInScope } from "../clusters/scope.ts";
import type { Logger } from "../ports.ts";
import type { ReleaseKey, ReleaseMetadata } from "../release/model.ts";
import type { Page, ReleaseStore } from "../store/release-store.ts";
import type { AttributionStore, Audience } from "../who/attribution.ts";
import { noAttributions, readShownAttributions, type ShownWho } from "../who/shown.ts";

/** helm history's default --max: the CLI's default and the API's when `?max=` is not given. */
export const HELM_HISTORY_MAX = 256;

export interface ReleaseHistoryOptions {
  /** Page size (Helm's --max); the store caps it. */
  max?: number;
  cursor?: string;
  /** Who reads the answer (default "public"): only the IAM-signed API's JSON is "iam" (ARN and account id). */
  audience?: Audience;
}

/**
 * A revision as history shows it: metadata without the user-supplied values (they can hold credentials), and who
 * created it when the audit log said (docs/who.md), as the audience may see it.
 */
export type HistoryEntry = Omit<ReleaseMetadata, "config"> & { who?: ShownWho };

export interface HistoryPage extends Page<HistoryEntry> {
  /** `audit logs are off for <cluster>: <what to run>`: said once, when the cluster's audit logs are off. */
  auditLogging?: string;
}

export interface HistoryDeps {
  store: ReleaseStore;
  clusters: ClusterScope;
  /** Who made each revision (issue #34); absent: history says nothing of who. */
  attributions?: AttributionStore;
  logger?: Logger;
}

export async function releaseHistory(
  deps: HistoryDeps,
  key: ReleaseKey,
  options: ReleaseHistoryOptions = {},
): Promise<HistoryPage> {
  const k = releaseInScope(deps.clusters, key);
  // One read of the attributions beside the page: neither waits for the other.
  const [page, shown] = await Promise.all([
    deps.store.history(k, { limit: options.max, cursor: options.cursor }),
    deps.attributions
      ? readShownAttributions(
          deps.attributions,
          k,
          options.audience ?? "public",
          (error) => deps.logger?.warn("attributions not read", { error: (error as Error)?.message ?? String(error) }),
          // Who made each revision: not the drift writes kept beside them.
          { only: "revision" },
        )
      : noAttributions(k),
  ]);
  const items = page.items.map(({ config: _config, ...revision }) => {
    const who = shown.revisions.get(revision.version);
    return who ? { ...revision, who } : revision;
  });
  return { ...page, items, ...(shown.loggingOff ? { auditLogging: shown.loggingOff } : {}) };
}
