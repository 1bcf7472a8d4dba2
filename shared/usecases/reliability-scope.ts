/**
 * The reliability report of many releases: a namespace, a cluster, a chart or the whole fleet. The releases are
 * the ones the fleet index lists (every audited release, no Scan), each read as its own bounded Query of
 * snapshots, and their additive totals summed (ratios from the sums: availability is covered-time weighted).
 * The worst releases are listed so a report says where to look.
 */
import { inScope, requireKnownCluster } from "../clusters/scope.ts";
import type { ReleaseKey } from "../release/model.ts";
import { validateNamespace } from "../release/validation.ts";
import { InvalidHistoryQueryError } from "../snapshots/errors.ts";
import type { FleetEntry } from "../snapshots/model.ts";
import { addTotals, deriveRatios, emptyTotals, releaseReliability } from "../snapshots/reliability.ts";
import {
  figuresOf,
  type ReliabilityDeps,
  type ReliabilityFigures,
  type ReportRules,
  readCovering,
  reportRules,
  resolveWindow,
  rulesOf,
  type WindowRequest,
  windowDocument,
} from "./reliability.ts";

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
  releases: number;
  window: ReturnType<typeof windowDocument>;
  notes: string[];
  /** The releases with the lowest availability (then most incidents), at most WORST_LISTED. */
  worst: ReleaseRow[];
  rules: ReportRules;
}

/** Releases one report reads one by one; the per-day rollups (docs/history.md) are the way past it. */
export const MAX_SCOPE_RELEASES = 2000;
export const WORST_LISTED = 10;
const CONCURRENCY = 8;
const CHART_LOOKUP_BATCH = 100;

export async function reliabilityOfScope(
  deps: ReliabilityDeps,
  request: ScopeRequest,
): Promise<ScopeReliabilityReport> {
  if (request.cluster !== undefined) requireKnownCluster(deps.clusters, request.cluster);
  const namespace = request.namespace === undefined ? undefined : validateNamespace(request.namespace);
  const chart = request.chart?.trim() || undefined;
  if (chart !== undefined && !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,252}$/.test(chart)) {
    throw new InvalidHistoryQueryError(`chart ${JSON.stringify(chart.slice(0, 60))} is not a chart name`);
  }
  const window = resolveWindow(request, deps.clock.now(), deps.settings.retentionDays);
  const rules = rulesOf(deps);
  let releases = (await audited(deps, request.cluster)).filter((r) => !namespace || r.namespace === namespace);
  if (chart) releases = await ofChart(deps, releases, chart);

  const totals = emptyTotals();
  const rows: ReleaseRow[] = [];
  const notes = [...window.notes];
  let next = 0;
  const worker = async () => {
    while (next < releases.length) {
      const release = releases[next++];
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
      if (read.notes.length > 0)
        notes.push(`${release.cluster}/${release.namespace}/${release.name}: ${read.notes[0]}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  if (releases.length === 0) notes.push("no audited release matches");
  rows.sort(
    (a, b) =>
      (a.availability ?? 2) - (b.availability ?? 2) || b.incidents - a.incidents || keyOf(a).localeCompare(keyOf(b)),
  );
  return {
    scope: {
      ...(request.cluster ? { cluster: request.cluster } : {}),
      ...(namespace ? { namespace } : {}),
      ...(chart ? { chart } : {}),
    },
    releases: releases.length,
    window: windowDocument(window),
    notes,
    ...figuresOf(totals),
    worst: rows.slice(0, WORST_LISTED),
    rules: reportRules(rules),
  };
}

const keyOf = (row: ReleaseRow) => `${row.release.cluster}/${row.release.namespace}/${row.release.name}`;

/** Every audited release (the fleet index, one Query per health), in the registry's scope, bounded. */
async function audited(deps: ReliabilityDeps, cluster: string | undefined): Promise<ReleaseKey[]> {
  const releases: ReleaseKey[] = [];
  let cursor: string | undefined;
  do {
    const page = await deps.snapshots.fleet({ cluster, limit: 1000, cursor }, deps.clock.now());
    releases.push(
      ...page.items.filter((e) => inScope(deps.clusters, e.release.cluster)).map((e: FleetEntry) => e.release),
    );
    cursor = page.cursor;
    if (releases.length > MAX_SCOPE_RELEASES) {
      throw new InvalidHistoryQueryError(
        `more than ${MAX_SCOPE_RELEASES} audited releases in scope: narrow the report with a cluster, namespace or chart`,
      );
    }
  } while (cursor);
  return releases;
}

/** The releases whose latest revision is of `chart` (its name in Chart.yaml), read in batches. */
async function ofChart(deps: ReliabilityDeps, releases: ReleaseKey[], chart: string): Promise<ReleaseKey[]> {
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
