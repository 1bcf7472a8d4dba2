/**
 * A fleet, cluster or namespace report from the per-day rollups (shared/snapshots/rollup.ts, docs/history.md
 * "Rollups"): whole UTC days, one small item per cluster and day, summed for the namespaces in scope.
 *
 * - The window is aligned to days: it starts at the UTC midnight on or before `since` and ends at the UTC midnight
 *   on or after `until` (or now); `window.observedSince/observedUntil` say so and a note too.
 * - `releases` is the most releases the audits saw in one day of the window; the window's time (coverage's
 *   denominator) is that many releases times its length, so a day the audits did not run is uncovered, not left out.
 * - The rollups count time up to each release's latest audit (the release report also holds its health from there
 *   to now, at most the gap threshold); days before the rollups existed hold nothing (a note says from when).
 * - The worst list's candidates are the releases with the most time not in Current; the caller reads each one's
 *   own report (a bounded few), so the rows are exact.
 */
import { type ClusterScope, inScope } from "../clusters/scope.ts";
import type { ReleaseKey } from "../release/model.ts";
import type { ReliabilityTotals } from "../snapshots/reliability.ts";
import { DAY_MS } from "../snapshots/retention.ts";
import { dayOf, dayStart, daysBetween } from "../snapshots/rollup.ts";
import { type NamespaceFilter, sumRollups } from "../snapshots/rollup-items.ts";
import type { RollupStore } from "../snapshots/rollup-store.ts";
import type { ReliabilityDeps, ReportWindow } from "./reliability.ts";

/** Releases re-read for the worst list: twice the rows listed, so a little coverage cannot crowd it. */
const WORST_CANDIDATES = 20;

export interface RollupRead {
  window: ReportWindow;
  totals: ReliabilityTotals;
  releases: number;
  notes: string[];
  worstCandidates: ReleaseKey[];
}

export async function totalsFromRollups(
  deps: Pick<ReliabilityDeps, "clusters"> & { rollups: RollupStore },
  scope: { cluster?: string; namespace?: string },
  asked: ReportWindow,
): Promise<RollupRead> {
  const window = alignedToDays(asked);
  const days = daysBetween(window.observedSince.getTime(), window.observedUntil.getTime());
  const items = await deps.rollups.rollups(days, scope.cluster, window.now);
  const sums = sumRollups(items, namespacesInScope(deps.clusters, scope.namespace));
  const releases = Math.max(0, ...sums.releasesPerDay.values());
  sums.totals.windowMs = releases * (window.observedUntil.getTime() - window.observedSince.getTime());
  const notes: string[] = [];
  const seenDays = [...sums.releasesPerDay.keys()].sort();
  if (seenDays.length === 0)
    notes.push("no audited release matches (the rollups hold nothing in scope for the window)");
  else if (seenDays[0] > days[0]) {
    notes.push(
      `the rollups begin on ${seenDays[0]}: releases audited before then (or before the rollups existed) are not covered before it`,
    );
  }
  const worstCandidates = [...sums.unhealthyMs.values()]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, WORST_CANDIDATES)
    .map((c) => c.release);
  return { window, totals: sums.totals, releases, notes, worstCandidates };
}

/** The window widened to whole UTC days (the rollups' grain), never past now; a note when it moved. */
function alignedToDays(asked: ReportWindow): ReportWindow {
  const since = dayStart(dayOf(asked.observedSince.getTime()));
  const untilMs = asked.observedUntil.getTime();
  const untilDay = dayStart(dayOf(untilMs));
  const until = Math.min(untilDay === untilMs ? untilMs : untilDay + DAY_MS, asked.now.getTime());
  const notes = [...asked.notes];
  if (since !== asked.observedSince.getTime() || until !== untilMs) {
    notes.push(
      `answered from the per-day rollups for whole UTC days: ${new Date(since).toISOString()} to ${new Date(until).toISOString()}`,
    );
  }
  return { ...asked, observedSince: new Date(since), observedUntil: new Date(until), notes };
}

/** The namespaces a cluster's figures are summed for: the viewer's grants, cut to the asked namespace. */
function namespacesInScope(clusters: ClusterScope, namespace: string | undefined): NamespaceFilter {
  const none = new Set<string>();
  return (cluster) => {
    if (!inScope(clusters, cluster)) return none;
    const granted = clusters !== "any" && clusters.grants ? clusters.grants.namespacesOf(cluster) : "*";
    if (namespace === undefined) return granted;
    return granted === "*" || granted.has(namespace) ? new Set([namespace]) : none;
  };
}
