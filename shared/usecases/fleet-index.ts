/**
 * The fleet's first pages without the join (docs/dashboard.md, "The fleet's reads"): the snapshots' FLEET index
 * is already in the fleet's order (worst health first, then cluster, namespace, name) and carries what a row
 * needs of the audit (health, since, checked, audited revision, drift count), so a page is one index Query per
 * health with a Limit of the page, and its releases' stored summaries in one BatchGetItem (the stored revision,
 * chart, last deployed; a release no longer stored is left out). It reads about twice the page, whatever the
 * fleet's size, but it cannot count the fleet: the counts per health (and the total) are the join's (DynamoDB
 * counts by reading, so a COUNT Query costs what the read does on DynamoDB Local), asked for separately.
 *
 * What it cannot answer, it declines (undefined) and the caller joins: a text filter, grants narrower than whole
 * clusters, a page deep into the fleet, and the rows of releases no audit has seen (they come after every
 * audited one).
 */
import type { ClusterScope } from "../clusters/scope.ts";
import type { HealthStatus } from "../health/index.ts";
import type { FleetEntry } from "../snapshots/model.ts";
import { FLEET_CLUSTERS_MAX, type SnapshotStore } from "../snapshots/snapshot-store.ts";
import type { ReleaseStore } from "../store/release-store.ts";
import { addMissingDriftCounts, type FleetHealth, type FleetRow, type FleetRowsPage, rowOf } from "./fleet-rows.ts";

/** Pages ending past this many rows are joined (an offset is read through, and checked against the store). */
export const FLEET_INDEX_WINDOW = 1000;
/** BatchGetItem's bound; also the index Query's page. */
const CHECK_AT_ONCE = 100;
/** Bounds the walk when many index entries are of releases no longer stored. */
const MAX_INDEX_PAGES = 40;

export interface FleetIndexRead {
  store: ReleaseStore;
  snapshots: SnapshotStore;
  scope: ClusterScope;
  now: Date;
  /** The clusters read: one asked for, the scope's, or [undefined] for the store's every cluster ("any"). */
  clusters: (string | undefined)[];
  namespace?: string;
  healths?: FleetHealth[];
  text: string;
  offset: number;
  limit: number;
}

/** Whether the index alone can answer this request (else: the join). */
export function indexServes(read: Omit<FleetIndexRead, "store" | "snapshots" | "now">): boolean {
  if (read.text) return false;
  if (read.offset + read.limit > FLEET_INDEX_WINDOW) return false;
  if (read.healths?.every((h) => h === "NotAudited")) return false;
  if (read.clusters.length > FLEET_CLUSTERS_MAX) return false;
  // A person granted some namespaces of a cluster: the index has no per-namespace key to count by.
  const grants = read.scope === "any" ? undefined : read.scope.grants;
  return !grants || read.clusters.every((c) => c === undefined || grants.namespacesOf(c) === "*");
}

/** The page from the index, or undefined when it may reach releases no audit has seen (the join lists those). */
export async function fleetFromIndex(read: FleetIndexRead): Promise<FleetRowsPage | undefined> {
  const single = read.clusters.length === 1 ? read.clusters[0] : undefined;
  const audited = read.healths?.filter((h): h is HealthStatus => h !== "NotAudited");
  const end = read.offset + read.limit;
  // One row past the page says whether there is a next one.
  const rows = await readRows(read, end + 1, {
    ...(single ? { cluster: single } : {}),
    ...(read.namespace ? { namespace: read.namespace } : {}),
    // A registry's clusters (never entries of a cluster taken out of it); "any": every cluster stored.
    ...(read.clusters.length > 1 ? { clusters: read.clusters as string[] } : {}),
    ...(audited ? { health: audited } : {}),
  });
  const more = rows.length > end;
  if (!more && (!read.healths || read.healths.includes("NotAudited"))) return undefined;
  const page = rows.slice(read.offset, end);
  await addMissingDriftCounts(read.snapshots, page);
  return { releases: page, ...(more ? { cursor: String(end) } : {}) };
}

/** The first `want` rows of audited releases still stored, in the index's order. */
async function readRows(
  read: FleetIndexRead,
  want: number,
  filter: Parameters<SnapshotStore["fleet"]>[0],
): Promise<FleetRow[]> {
  const rows: FleetRow[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_INDEX_PAGES && rows.length < want; page++) {
    const limit = Math.min(CHECK_AT_ONCE, want - rows.length);
    const found = await read.snapshots.fleet({ ...filter, limit, cursor }, read.now);
    rows.push(...(await storedRows(read.store, found.items)));
    cursor = found.cursor;
    if (!cursor) break;
  }
  return rows;
}

/** Index entries with their release's stored summary; entries of releases no longer stored are left out. */
async function storedRows(store: ReleaseStore, entries: FleetEntry[]): Promise<FleetRow[]> {
  const summaries = await store.latestSummaries(entries.map((entry) => entry.release));
  return entries.flatMap((entry, i) => {
    const summary = summaries[i];
    return summary ? [rowOf(summary, entry)] : [];
  });
}
