/**
 * `helm list` with its flags, from the store: Helm v4's action.List in the same order. The
 * latest revision of each release (every revision for `--superseded` alone), the state flags,
 * the name regex, the label selector, then the sort, the offset and the max. Every adapter (CLI,
 * API, chatops) asks this one use case, so the same query gives the same releases.
 */

import type { RE2JS } from "re2js";
import { type ClusterScope, inScope, requireKnownCluster } from "../clusters/scope.ts";
import { ValidationError } from "../errors.ts";
import { compileGoRegexp } from "../input/go-regexp.ts";
import { parseLabelSelector } from "../release/label-selector.ts";
import type { ReleaseKey, ReleaseStatus, ReleaseSummary } from "../release/model.ts";
import { validateClusterName, validateNamespace, validateStatus } from "../release/validation.ts";
import { readAllPages } from "../store/paging.ts";
import type { ReleaseStore } from "../store/release-store.ts";

/** helm list's state flags and the statuses each one shows (pkg/action/list.go's ListStates). */
export const LIST_STATE_FLAGS = {
  deployed: ["deployed"],
  failed: ["failed"],
  uninstalled: ["uninstalled"],
  superseded: ["superseded"],
  pending: ["pending-install", "pending-upgrade", "pending-rollback"],
  uninstalling: ["uninstalling"],
} as const satisfies Record<string, readonly ReleaseStatus[]>;
export type ListStateFlag = keyof typeof LIST_STATE_FLAGS;

export const DEFAULT_LIST_MAX = 256;
/** Bounds the store walk: 100 pages of 1000 is more releases than any cluster has. */
const MAX_STORE_PAGES = 100;
const MAX_FILTER_LENGTH = 512;

export interface HelmListQuery {
  cluster: string;
  /** Undefined lists every namespace (-A). */
  namespace?: string;
  /** None given: every status (helm v4's default). */
  states?: readonly ListStateFlag[];
  /** The product's `--status S` / `?status=`: exactly this status (with the flags, both hold). */
  status?: ReleaseStatus;
  /** -f: a regular expression the release name must match (unanchored). */
  filter?: string;
  /** -l: a label selector on the release's labels (Helm's storage labels included). */
  selector?: string;
  /** -m: at most this many; 0 or less means no limit. Default 256. */
  max?: number;
  /** --offset: skip this many after sorting. */
  offset?: number;
  /** -d: by last deployed time, oldest first. */
  byDate?: boolean;
  /** -r: reverse the order. */
  reverse?: boolean;
}

export interface HelmListResult {
  releases: ReleaseSummary[];
  /** The offset of the next page when `max` cut the list. */
  nextOffset?: number;
}

export async function helmList(
  deps: { store: ReleaseStore; clusters: ClusterScope },
  query: HelmListQuery,
): Promise<HelmListResult> {
  const cluster = validateClusterName(query.cluster);
  const namespace = query.namespace === undefined ? undefined : validateNamespace(query.namespace);
  const status = query.status === undefined ? undefined : validateStatus(query.status);
  const states = [...new Set(query.states ?? [])];
  for (const state of states) {
    if (!Object.hasOwn(LIST_STATE_FLAGS, state))
      throw new ValidationError(`unknown release state ${JSON.stringify(state)}`);
  }
  const nameFilter = query.filter ? compileNameFilter(query.filter) : undefined;
  const selector = query.selector ? parseLabelSelector(query.selector) : undefined;
  const max = wholeNumber("max", query.max ?? DEFAULT_LIST_MAX, Number.NEGATIVE_INFINITY);
  const offset = wholeNumber("offset", query.offset ?? 0, 0);
  requireKnownCluster(deps.clusters, cluster, namespace);

  // "By definition, superseded releases are never shown if only the latest releases are returned":
  // --superseded alone lists every superseded revision instead.
  const supersededOnly = states.length === 1 && states[0] === "superseded";
  const statuses = states.length === 0 ? undefined : states.flatMap((state) => LIST_STATE_FLAGS[state]);
  const candidates = await readAllPages((cursor) =>
    supersededOnly
      ? deps.store.listRevisions({ cluster, namespace, statuses: ["superseded"] }, { limit: 1000, cursor })
      : deps.store.listReleases({ cluster, namespace, status, statuses }, { limit: 1000, cursor }),
  );
  let releases = candidates.filter(
    (r) =>
      inScope(deps.clusters, cluster, r.namespace) &&
      (!nameFilter || nameFilter.test(r.name)) &&
      (status === undefined || r.status === status),
  );
  if (selector) {
    const labels = await Promise.all(releases.map((r) => storageLabels(deps.store, r)));
    releases = releases.filter((_, i) => selector(labels[i]));
  }
  sortLikeHelm(releases, query.byDate ?? false, query.reverse ?? false);
  if (offset >= releases.length) return { releases: [] };
  const limit = max > 0 && max < releases.length ? max : releases.length;
  const end = Math.min(offset + limit, releases.length);
  return end < releases.length
    ? { releases: releases.slice(offset, end), nextOffset: end }
    : { releases: releases.slice(offset) };
}

function wholeNumber(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new ValidationError(
      `invalid ${name} ${JSON.stringify(value)}: must be a whole number${min === 0 ? " >= 0" : ""}`,
    );
  }
  return value;
}

/**
 * Helm's -f is a Go regular expression (RE2: linear time, no look-around or back-references): re2js is RE2's
 * syntax and engine, and its errors are Go's words (`error parsing regexp: missing closing ]: `[``).
 */
export function compileNameFilter(pattern: string): { test(name: string): boolean } {
  if (pattern.length > MAX_FILTER_LENGTH) {
    throw new ValidationError(
      `invalid filter ${JSON.stringify(pattern.slice(0, 80))}: longer than ${MAX_FILTER_LENGTH} characters`,
      "InvalidFilter",
    );
  }
  let compiled: RE2JS;
  try {
    compiled = compileGoRegexp(pattern);
  } catch (error) {
    throw new ValidationError((error as Error).message, "InvalidFilter");
  }
  return { test: (name) => compiled.matcher(name).find() };
}

/** The labels Helm's Secret storage holds for a revision: the release's own plus name, owner, status, version. */
async function storageLabels(store: ReleaseStore, release: ReleaseSummary): Promise<Record<string, string>> {
  const key: ReleaseKey = { cluster: release.cluster, namespace: release.namespace, name: release.name };
  let custom: Record<string, string> | undefined;
  let cursor: string | undefined;
  for (let round = 0; round < MAX_STORE_PAGES && custom === undefined; round++) {
    const page = await store.history(key, { limit: round === 0 ? 1 : 1000, cursor });
    custom =
      page.items.find((revision) => revision.version === release.revision)?.labels ?? (page.cursor ? undefined : {});
    cursor = page.cursor;
  }
  return { ...custom, name: release.name, owner: "helm", status: release.status, version: String(release.revision) };
}

/** action.List's sort: by name (releaseutil.SortByName), -d by last deployed second then name, -r reversed. */
function sortLikeHelm(releases: ReleaseSummary[], byDate: boolean, reverse: boolean): void {
  const seconds = (r: ReleaseSummary) => {
    const ms = r.updated ? Date.parse(r.updated) : Number.NaN;
    return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : Math.floor(ms / 1000);
  };
  const byName = (a: ReleaseSummary, b: ReleaseSummary) =>
    a.name < b.name
      ? -1
      : a.name > b.name
        ? 1
        : a.namespace < b.namespace
          ? -1
          : a.namespace > b.namespace
            ? 1
            : a.revision - b.revision;
  releases.sort(byDate ? (a, b) => seconds(a) - seconds(b) || byName(a, b) : byName);
  if (reverse) releases.reverse();
}
