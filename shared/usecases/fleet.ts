/**
 * The dashboard's fleet: every release of every cluster in scope (the latest stored revision, from the
 * releases table) with its latest audited health (the snapshots' FLEET index), worst health first, filtered
 * and paged. Two ways to the same page (docs/dashboard.md, "The fleet's reads"):
 * - the index (fleet-index.ts), when the caller can do without the counts (`counts: false`): the first pages
 *   of the fleet, by health, cluster, namespace, read about twice the page's rows (a cold function answers
 *   in a few small reads);
 * - the join: both sources read whole (a Query per cluster, one per health), joined, sorted, paged; for a
 *   text filter, a deep page, releases no audit has seen, narrower grants. A warm function keeps it 30 s
 *   (FleetCache), and then serves every filter and page from it.
 */
import { type ClusterScope, inScope, requireKnownCluster } from "../clusters/scope.ts";
import { pool } from "../concurrency.ts";
import { ValidationError } from "../errors.ts";
import type { Clock } from "../ports.ts";
import type { ReleaseSummary } from "../release/model.ts";
import { validateClusterName, validateNamespace } from "../release/validation.ts";
import type { SnapshotStore } from "../snapshots/snapshot-store.ts";
import { InvalidCursorError } from "../store/errors.ts";
import { readAllPages } from "../store/paging.ts";
import type { ReleaseStore } from "../store/release-store.ts";
import { fleetFromIndex, indexServes } from "./fleet-index.ts";
import {
  addMissingDriftCounts,
  compareRows,
  emptyCounts,
  type FleetHealth,
  type FleetPage,
  type FleetRow,
  type FleetRowsPage,
  keyOf,
  rowOf,
} from "./fleet-rows.ts";
import { parseHealthList } from "./snapshots.ts";

export { FLEET_HEALTHS, type FleetHealth, type FleetPage, type FleetRow, type FleetRowsPage } from "./fleet-rows.ts";

export interface FleetDeps {
  store: ReleaseStore;
  snapshots: SnapshotStore;
  clusters: ClusterScope;
  clock: Clock;
  /** The joined fleet kept for a few seconds by a warm function (paging and filtering then read nothing). */
  cache?: FleetCache;
}

/**
 * The joined fleet (every release of some clusters with its latest health) per set of clusters and namespace,
 * kept `ttlMs` (default 30 s: the audits run every few minutes) and at most `maxEntries` sets. Owned by the
 * function's deps (one per warm process); rows are copied out, never handed out to be changed.
 */
export class FleetCache {
  readonly #entries = new Map<string, { at: number; rows: Promise<FleetRow[]> }>();
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  constructor(options: { ttlMs?: number; maxEntries?: number; now?: () => number } = {}) {
    this.#ttlMs = options.ttlMs ?? 30_000;
    this.#maxEntries = options.maxEntries ?? 32;
    this.#now = options.now ?? (() => performance.now());
  }
  /** The joined fleet if a fresh one is held (or being read), else undefined: nothing is read. */
  peek(key: string): Promise<FleetRow[]> | undefined {
    const hit = this.#entries.get(key);
    return hit && this.#now() - hit.at < this.#ttlMs
      ? hit.rows.then((rows) => rows.map((row) => ({ ...row })))
      : undefined;
  }
  async get(key: string, load: () => Promise<FleetRow[]>): Promise<FleetRow[]> {
    const held = this.peek(key);
    if (held) return held;
    const rows = load();
    this.#entries.delete(key);
    this.#entries.set(key, { at: this.#now(), rows });
    while (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value as string);
    // A failed read is not kept: the next request reads again.
    rows.catch(() => this.#entries.get(key)?.rows === rows && this.#entries.delete(key));
    return (await rows).map((row) => ({ ...row }));
  }
}

export interface FleetQuery {
  cluster?: string;
  namespace?: string;
  /** Comma-separated healths (NotAudited included). */
  health?: string;
  /** Case-insensitive text in the cluster, namespace, name or chart. */
  q?: string;
  limit?: number;
  cursor?: string;
  /**
   * false: the counts and total may be left out when they would cost a read of the whole fleet (the page then
   * comes from the index); the dashboard asks for its rows so, then for the counts.
   */
  counts?: boolean;
}

/** The join's per-cluster Queries in flight at once (the SDK's sockets are 50). */
const JOIN_QUERIES_AT_ONCE = 16;
/**
 * Bounds the join's walks: 2,000 pages of 1,000 (the planner's bound too). readAllPages' default of 100 stopped
 * the FLEET index at 100,000 entries, and every audited release past them was counted NotAudited.
 */
const JOIN_MAX_PAGES = 2_000;

export const FLEET_PAGE_DEFAULT = 50;
export const FLEET_PAGE_MAX = 1000;

/** `join`: always the join (the bench's figure; tests that hold both ways to one answer). */
interface FleetOptions {
  drift?: boolean;
  join?: boolean;
}

export function fleetReleases(
  deps: FleetDeps,
  query: FleetQuery & { counts?: true },
  options?: FleetOptions,
): Promise<FleetPage>;
export function fleetReleases(deps: FleetDeps, query: FleetQuery, options?: FleetOptions): Promise<FleetRowsPage>;
export async function fleetReleases(
  deps: FleetDeps,
  query: FleetQuery,
  options: FleetOptions = {},
): Promise<FleetRowsPage> {
  const cluster = query.cluster ? validateClusterName(query.cluster) : undefined;
  const namespace = query.namespace ? validateNamespace(query.namespace) : undefined;
  if (cluster) requireKnownCluster(deps.clusters, cluster, namespace);
  const healths = parseFleetHealths(query.health);
  const text = (query.q ?? "").trim().toLowerCase().slice(0, 200);
  const limit = query.limit ?? FLEET_PAGE_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > FLEET_PAGE_MAX) {
    throw new ValidationError(`limit ${limit} is not a whole number from 1 to ${FLEET_PAGE_MAX}`, "InvalidLimit");
  }
  const offset = parseOffset(query.cursor);

  // Per cluster (a Query each); without a registry (the CLI's local mode), the store's every cluster.
  const clusters: (string | undefined)[] =
    cluster || deps.clusters === "any" ? [cluster] : deps.clusters.list().map((c) => c.name);
  const key = `${clusters.join(",")}|${namespace ?? "*"}`;
  const held = deps.cache?.peek(key);
  const read = { scope: deps.clusters, clusters, namespace, healths, text, offset, limit };
  if (query.counts === false && !held && !options.join && indexServes(read)) {
    const page = await fleetFromIndex({ ...read, store: deps.store, snapshots: deps.snapshots, now: deps.clock.now() });
    if (page) return page;
  }
  // Every release of these clusters with its health, before the person's namespaces and the text filter.
  const load = async (): Promise<FleetRow[]> => {
    const releases: ReleaseSummary[][] = clusters.map(() => []);
    const [, audited] = await Promise.all([
      // A Query per cluster, JOIN_QUERIES_AT_ONCE at a time: 1,000 clusters are not 1,000 requests at once.
      pool(
        clusters.map((c, i) => async () => {
          releases[i] = await readAllPages(
            (cursor) => deps.store.listReleases({ cluster: c, namespace }, { limit: 1000, cursor }),
            JOIN_MAX_PAGES,
          );
        }),
        JOIN_QUERIES_AT_ONCE,
      ),
      readAllPages(
        (cursor) => deps.snapshots.fleet({ cluster, limit: 1000, cursor }, deps.clock.now()),
        JOIN_MAX_PAGES,
      ),
    ]);
    const health = new Map(audited.map((entry) => [keyOf(entry.release), entry]));
    return releases.flat().map((release) => rowOf(release, health.get(keyOf(release))));
  };
  const all = await (held ?? (deps.cache ? deps.cache.get(key, load) : load()));
  const rows = all.filter(
    (row) => inScope(deps.clusters, row.cluster, row.namespace) && (!text || matchesText(row, text)),
  );
  const counts = emptyCounts();
  for (const row of rows) counts[row.health]++;
  const shown = healths ? rows.filter((row) => healths.includes(row.health)) : rows;
  shown.sort(compareRows);
  const page = shown.slice(offset, offset + limit);
  if (options.drift !== false) await addMissingDriftCounts(deps.snapshots, page);
  const next = offset + limit < shown.length ? { cursor: String(offset + limit) } : {};
  return { releases: page, counts, total: shown.length, ...next };
}

function matchesText(row: FleetRow, text: string): boolean {
  return [row.cluster, row.namespace, row.name, row.chart ?? ""].some((field) => field.toLowerCase().includes(text));
}

export function parseFleetHealths(value: string | undefined): FleetHealth[] | undefined {
  if (value === undefined || value === "") return undefined;
  const list = value.split(",").map((item) => item.trim());
  const real = list.filter((item) => item !== "NotAudited");
  parseHealthList(real.join(",") || undefined);
  return list as FleetHealth[];
}

function parseOffset(cursor: string | undefined): number {
  if (cursor === undefined || cursor === "") return 0;
  if (!/^\d{1,7}$/.test(cursor))
    throw new InvalidCursorError(`cursor ${JSON.stringify(cursor.slice(0, 40))} is not one this listing gave`);
  return Number(cursor);
}
