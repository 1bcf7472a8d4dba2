/**
 * The reliability report of many releases: a namespace, a cluster, a chart or the whole fleet.
 *
 * - Fleet, cluster and namespace: the per-day rollups the audit worker adds to as it records (reliability-rollup.ts,
 *   docs/history.md "Rollups"): one item per cluster and UTC day, so 30 days of 50 clusters is 1,500 small items
 *   whatever the number of releases; the worst releases are re-read one by one (a bounded few). The rollups'
 *   grain is a UTC day: a window that is not whole days (the last hour, 6 hours) over a small scope (at most
 *   EXACT_SCOPE_RELEASES, the rollups say how many) is read release by release instead, exactly as asked.
 * - A chart: the releases the fleet index lists whose latest revision is of that chart, each read as its own
 *   bounded Query of snapshots, their additive totals summed (ratios from the sums). Bounded at MAX_SCOPE_RELEASES
 *   (a chart's day figures would make every message's rollup write as big as the cluster's number of charts).
 */
import { inScope, requireKnownCluster } from "../clusters/scope.ts";
import { pool } from "../concurrency.ts";
import type { ReleaseKey } from "../release/model.ts";
import { validateNamespace } from "../release/validation.ts";
import { InvalidHistoryQueryError } from "../snapshots/errors.ts";
import type { FleetEntry } from "../snapshots/model.ts";
import {
  addTotals,
  deriveRatios,
  emptyTotals,
  type ReliabilityRules,
  type ReliabilityTotals,
  releaseReliability,
} from "../snapshots/reliability.ts";
import type { RollupStore } from "../snapshots/rollup-store.ts";
import {
  figuresOf,
  type ReliabilityDeps,
  type ReliabilityFigures,
  type ReportRules,
  type ReportWindow,
  readCovering,
  reportRules,
  resolveWindow,
  rulesOf,
  type WindowRequest,
  windowDocument,
} from "./reliability.ts";
import { totalsFromRollups } from "./reliability-rollup.ts";

/** A scope's report reads the per-day rollups besides a release report's deps (reliability-rollup.ts). */
export interface ScopeReliabilityDeps extends ReliabilityDeps {
  rollups: RollupStore;
}

export interface ScopeRequest extends WindowRequest {
  cluster?: string;
  namespace?: string;
  chart?: string;
}

export interface ReleaseRow {
  release: ReleaseKey;
  availability: number | null;
  coverage: number;
  incidents: number;
  flaps: number;
  deploys: number;
}

/** The documented document of GET /fleet/reliability and `reliability [--cluster C] [--chart N] -o json`. */
export interface ScopeReliabilityReport extends ReliabilityFigures {
  scope: { cluster?: string; namespace?: string; chart?: string };
  /** From the rollups: the most releases the audits saw in one day; for a chart: its audited releases. */
  releases: number;
  window: ReturnType<typeof windowDocument>;
  notes: string[];
  /**
   * The releases with the lowest availability (then most incidents), at most WORST_LISTED, each with its own
   * report's figures; from the rollups, among the ones with the most time not in Current.
   */
  worst: ReleaseRow[];
  rules: ReportRules;
}

/** Releases a chart report reads one by one (the other scopes read the rollups). */
export const MAX_SCOPE_RELEASES = 2000;
/** Up to this many releases, a window that is not whole UTC days is answered exactly, release by release. */
export const EXACT_SCOPE_RELEASES = 100;
export const WORST_LISTED = 10;
const CONCURRENCY = 8;
const CHART_LOOKUP_BATCH = 100;

export async function reliabilityOfScope(
  deps: ScopeReliabilityDeps,
  request: ScopeRequest,
): Promise<ScopeReliabilityReport> {
  const namespace = request.namespace === undefined ? undefined : validateNamespace(request.namespace);
  if (request.cluster !== undefined) requireKnownCluster(deps.clusters, request.cluster, namespace);
  const chart = request.chart?.trim() || undefined;
  if (chart !== undefined && !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,252}$/.test(chart)) {
    throw new InvalidHistoryQueryError(`chart ${JSON.stringify(chart.slice(0, 60))} is not a chart name`);
  }
  const rules = rulesOf(deps);
  const scope = {
    ...(request.cluster ? { cluster: request.cluster } : {}),
    ...(namespace ? { namespace } : {}),
    ...(chart ? { chart } : {}),
  };
  const asked = resolveWindow(request, deps.clock.now(), deps.settings.retentionDays);
  let releases: ReleaseKey[] | undefined;
  if (!chart) {
    const read = await totalsFromRollups(deps, { cluster: request.cluster, namespace }, asked);
    const exactBelow = deps.settings.exactScopeReleases ?? EXACT_SCOPE_RELEASES;
    const wholeDays =
      read.window.observedSince.getTime() === asked.observedSince.getTime() &&
      read.window.observedUntil.getTime() === asked.observedUntil.getTime();
    if (!wholeDays && read.releases <= exactBelow) {
      releases = await audited(deps, request.cluster, namespace, exactBelow);
    }
    if (releases) return exactReport(deps, scope, releases, asked, rules, "release by release");
    const worst = await releaseRows(deps, read.worstCandidates, read.window, rules);
    return {
      scope,
      releases: read.releases,
      window: windowDocument(read.window),
      notes: [...read.window.notes, ...read.notes, ...worst.notes],
      ...figuresOf(read.totals),
      worst: worst.rows.slice(0, WORST_LISTED),
      rules: reportRules(rules),
    };
  }
  releases = await audited(deps, request.cluster, namespace, MAX_SCOPE_RELEASES);
  if (!releases) {
    throw new InvalidHistoryQueryError(
      `more than ${MAX_SCOPE_RELEASES} audited releases in scope: narrow the report with a cluster, namespace or chart`,
    );
  }
  return exactReport(deps, scope, await ofChart(deps, releases, chart), asked, rules);
}

/** The report summed from each release's own report over the window as asked. */
async function exactReport(
  deps: ScopeReliabilityDeps,
  scope: ScopeReliabilityReport["scope"],
  releases: readonly ReleaseKey[],
  asked: ReportWindow,
  rules: ReliabilityRules,
  why?: string,
): Promise<ScopeReliabilityReport> {
  const read = await releaseRows(deps, releases, asked, rules);
  if (releases.length === 0) read.notes.push("no audited release matches");
  else if (why) read.notes.unshift(`read ${why} (${releases.length}): the window exactly as asked, not whole UTC days`);
  return {
    scope,
    releases: releases.length,
    window: windowDocument(asked),
    notes: [...asked.notes, ...read.notes],
    ...figuresOf(read.totals),
    worst: read.rows.slice(0, WORST_LISTED),
    rules: reportRules(rules),
  };
}

/** Each release's report over the window, read one by one (bounded concurrency), summed, worst first. */
async function releaseRows(
  deps: ScopeReliabilityDeps,
  releases: readonly ReleaseKey[],
  window: ReportWindow,
  rules: ReliabilityRules,
): Promise<{ totals: ReliabilityTotals; rows: ReleaseRow[]; notes: string[] }> {
  const totals = emptyTotals();
  const rows: ReleaseRow[] = [];
  const notes: string[] = [];
  const readOne = async (release: ReleaseKey) => {
    const read = await readCovering(deps, release, window, rules);
    const result = releaseReliability(
      read.snapshots,
      { since: window.observedSince.getTime(), until: window.observedUntil.getTime(), now: window.now.getTime() },
      rules,
    );
    addTotals(totals, result.totals);
    const ratios = deriveRatios(result.totals);
    rows.push({
      release,
      availability: ratios.availability,
      coverage: ratios.coverage,
      incidents: result.totals.incidents,
      flaps: result.totals.flaps,
      deploys: result.totals.deploys,
    });
    if (read.notes.length > 0) notes.push(`${release.cluster}/${release.namespace}/${release.name}: ${read.notes[0]}`);
  };
  await pool(
    releases.map((release) => () => readOne(release)),
    CONCURRENCY,
  );
  rows.sort(
    (a, b) =>
      (a.availability ?? 2) - (b.availability ?? 2) || b.incidents - a.incidents || keyOf(a).localeCompare(keyOf(b)),
  );
  return { totals, rows, notes };
}

const keyOf = (row: ReleaseRow) => `${row.release.cluster}/${row.release.namespace}/${row.release.name}`;

/**
 * Every audited release (the fleet index, one Query per health) in scope (registry, grants, namespace); undefined
 * as soon as there are more than `max`.
 */
async function audited(
  deps: ScopeReliabilityDeps,
  cluster: string | undefined,
  namespace: string | undefined,
  max: number,
): Promise<ReleaseKey[] | undefined> {
  const releases: ReleaseKey[] = [];
  let cursor: string | undefined;
  do {
    // The namespace narrows the index read itself (a key prefix with a cluster), not only what is kept.
    const page = await deps.snapshots.fleet(
      { cluster, ...(namespace ? { namespace } : {}), limit: Math.min(1000, max + 1), cursor },
      deps.clock.now(),
    );
    releases.push(
      ...page.items
        .filter((e) => inScope(deps.clusters, e.release.cluster, e.release.namespace))
        .map((e: FleetEntry) => e.release),
    );
    cursor = page.cursor;
    if (releases.length > max) return undefined;
  } while (cursor);
  return releases;
}

/** The releases whose latest revision is of `chart` (its name in Chart.yaml), read in batches. */
async function ofChart(deps: ScopeReliabilityDeps, releases: ReleaseKey[], chart: string): Promise<ReleaseKey[]> {
  if (!deps.releases) throw new InvalidHistoryQueryError("a chart filter needs the releases table");
  const kept: ReleaseKey[] = [];
  for (let i = 0; i < releases.length; i += CHART_LOOKUP_BATCH) {
    const batch = releases.slice(i, i + CHART_LOOKUP_BATCH);
    const reads = await deps.releases.getLatestOfEach(batch);
    reads.forEach((read, j) => {
      if ("release" in read && read.release.chart?.metadata.name === chart) kept.push(batch[j]);
    });
  }
  return kept;
}
