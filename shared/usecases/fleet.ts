/**
 * The dashboard's fleet: every release of every cluster in scope (the latest stored revision, from the
 * releases table) joined with its latest audited health (the snapshots' FLEET index), worst health first,
 * filtered and paged. Both sources are read in pages (no Scan: a Query per cluster and one per health);
 * the page's drift counts come from each shown release's latest snapshot.
 */
import { type ClusterScope, inScope, requireKnownCluster } from "../clusters/scope.ts";
import { ValidationError } from "../errors.ts";
import type { HealthStatus } from "../health/index.ts";
import type { Clock } from "../ports.ts";
import type { ReleaseKey, ReleaseSummary } from "../release/model.ts";
import { validateClusterName, validateNamespace } from "../release/validation.ts";
import { HEALTH_SEVERITY } from "../snapshots/model.ts";
import type { SnapshotStore } from "../snapshots/snapshot-store.ts";
import { readAllPages } from "../store/paging.ts";
import type { ReleaseStore } from "../store/release-store.ts";
import { parseHealthList } from "./snapshots.ts";

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
  async get(key: string, load: () => Promise<FleetRow[]>): Promise<FleetRow[]> {
    const now = this.#now();
    const hit = this.#entries.get(key);
    if (hit && now - hit.at < this.#ttlMs) return (await hit.rows).map((row) => ({ ...row }));
    const rows = load();
    this.#entries.delete(key);
    this.#entries.set(key, { at: now, rows });
    while (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value as string);
    // A failed read is not kept: the next request reads again.
    rows.catch(() => this.#entries.get(key)?.rows === rows && this.#entries.delete(key));
    return (await rows).map((row) => ({ ...row }));
  }
}

/** A release's health, or `NotAudited` when no audit has seen it yet. */
export type FleetHealth = HealthStatus | "NotAudited";
export const FLEET_HEALTHS: readonly FleetHealth[] = [
  "Failed",
  "Unknown",
  "NotFound",
  "Terminating",
  "InProgress",
  "Current",
  "NotAudited",
];
const SEVERITY: Record<FleetHealth, number> = { ...HEALTH_SEVERITY, NotAudited: 6 };

export interface FleetRow {
  cluster: string;
  namespace: string;
  name: string;
  /** The latest stored revision and its Helm status. */
  revision: number;
  status: string;
  chart?: string;
  appVersion?: string;
  lastDeployed?: string;
  health: FleetHealth;
  healthMessage?: string;
  /** Since when the release has looked like this (its latest snapshot's first audit). */
  since?: string;
  /** When an audit last read it: how fresh `health` is. */
  checkedAt?: string;
  /** The revision the audit read; differs from `revision` when a newer one was stored since. */
  auditedRevision?: number;
  snapshotId?: string;
  /** Fields changed behind Helm's back at the last audit. */
  driftCount?: number;
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
}

export interface FleetPage {
  releases: FleetRow[];
  /** Releases per health among those matching every filter but `health`. */
  counts: Record<FleetHealth, number>;
  /** Releases matching every filter. */
  total: number;
  cursor?: string;
}

export const FLEET_PAGE_DEFAULT = 50;
export const FLEET_PAGE_MAX = 1000;
const DRIFT_READS_AT_ONCE = 16;

export async function fleetReleases(
  deps: FleetDeps,
  query: FleetQuery,
  options: { drift?: boolean } = {},
): Promise<FleetPage> {
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
  // Every release of these clusters with its health, before the person's namespaces and the text filter.
  const load = async (): Promise<FleetRow[]> => {
    const [releases, audited] = await Promise.all([
      Promise.all(
        clusters.map((c) =>
          readAllPages((cursor) => deps.store.listReleases({ cluster: c, namespace }, { limit: 1000, cursor })),
        ),
      ),
      readAllPages((cursor) => deps.snapshots.fleet({ cluster, limit: 1000, cursor }, deps.clock.now())),
    ]);
    const health = new Map(audited.map((entry) => [keyOf(entry.release), entry]));
    return releases.flat().map((release) => rowOf(release, health.get(keyOf(release))));
  };
  const key = `${clusters.join(",")}|${namespace ?? "*"}`;
  const all = deps.cache ? await deps.cache.get(key, load) : await load();
  const rows = all.filter(
    (row) => inScope(deps.clusters, row.cluster, row.namespace) && (!text || matchesText(row, text)),
  );
  const counts = Object.fromEntries(FLEET_HEALTHS.map((h) => [h, 0])) as Record<FleetHealth, number>;
  for (const row of rows) counts[row.health]++;
  const shown = healths ? rows.filter((row) => healths.includes(row.health)) : rows;
  shown.sort(
    (a, b) =>
      SEVERITY[a.health] - SEVERITY[b.health] ||
      compare(a.cluster, b.cluster) ||
      compare(a.namespace, b.namespace) ||
      compare(a.name, b.name),
  );
  const page = shown.slice(offset, offset + limit);
  if (options.drift !== false) await addDriftCounts(deps.snapshots, page);
  const next = offset + limit < shown.length ? { cursor: String(offset + limit) } : {};
  return { releases: page, counts, total: shown.length, ...next };
}

function rowOf(
  release: ReleaseSummary,
  entry: Awaited<ReturnType<SnapshotStore["fleet"]>>["items"][number] | undefined,
) {
  const row: FleetRow = {
    cluster: release.cluster,
    namespace: release.namespace,
    name: release.name,
    revision: release.revision,
    status: release.status,
    health: entry?.health.overall ?? "NotAudited",
  };
  if (release.chart) {
    row.chart = `${release.chart.name}-${release.chart.version}`;
    if (release.chart.appVersion) row.appVersion = release.chart.appVersion;
  }
  if (release.updated) row.lastDeployed = release.updated;
  if (entry) {
    row.healthMessage = entry.health.message;
    row.since = entry.since;
    row.checkedAt = entry.lastSeenAt;
    row.auditedRevision = entry.revision;
    row.snapshotId = entry.snapshotId;
  }
  return row;
}

function matchesText(row: FleetRow, text: string): boolean {
  return [row.cluster, row.namespace, row.name, row.chart ?? ""].some((field) => field.toLowerCase().includes(text));
}

async function addDriftCounts(snapshots: SnapshotStore, rows: FleetRow[]): Promise<void> {
  const audited = rows.filter((row) => row.snapshotId);
  for (let i = 0; i < audited.length; i += DRIFT_READS_AT_ONCE) {
    await Promise.all(
      audited.slice(i, i + DRIFT_READS_AT_ONCE).map(async (row) => {
        const latest = await snapshots.latest(row);
        if (latest) row.driftCount = latest.driftTotal ?? latest.drift?.length ?? 0;
      }),
    );
  }
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
    throw new ValidationError(
      `cursor ${JSON.stringify(cursor.slice(0, 40))} is not one this listing gave`,
      "InvalidCursor",
    );
  return Number(cursor);
}

/** Kubernetes names are ASCII: code-unit order, without localeCompare's cost over 10,000 rows. */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const keyOf = (r: ReleaseKey) => `${r.cluster}/${r.namespace}/${r.name}`;
