/**
 * The reliability report (API, CLI, chat): availability, time in each health, incidents, MTTR/MTBF, flaps,
 * deploys and change-failure rate over a window, from the audits' run-length history. One release is a bounded
 * Query of its snapshots; a namespace, cluster, chart or the fleet adds up the reports of the releases the fleet
 * index lists (reliability-scope.ts). The figures are defined in shared/history/reliability.ts and
 * docs/history.md "Reliability".
 */
import { registryObjectives, releaseInScope } from "../clusters/scope.ts";
import type { ReleaseKey } from "../release/model.ts";
import { InvalidHistoryQueryError } from "../snapshots/errors.ts";
import type { Snapshot } from "../snapshots/model.ts";
import {
  DEFAULT_AUDIT_INTERVAL_SECONDS,
  defaultRules,
  deriveRatios,
  type Incident,
  type ReliabilityRatios,
  type ReliabilityRules,
  type ReliabilityTotals,
  releaseReliability,
} from "../snapshots/reliability.ts";
import { DEFAULT_RETENTION_DAYS, expired, retainedSince } from "../snapshots/retention.ts";
import { LONGEST_BURN_WINDOW_MS, objectiveOf, type SloReport, sloReport } from "../snapshots/slo.ts";
import { buildTimeline, gapThresholdMs } from "../snapshots/timeline.ts";
import { ReleaseNotFoundError } from "../store/errors.ts";
import type { ReleaseStore } from "../store/release-store.ts";
import { type HistoryDeps, parseTime } from "./snapshots.ts";

export interface ReliabilitySettings {
  /** The audits' period (AUDIT_SCHEDULE's rate). */
  auditIntervalSeconds: number;
  /** SNAPSHOT_RETENTION_DAYS: nothing older is kept. */
  retentionDays: number;
  /**
   * Up to this many releases, a fleet/cluster/namespace report whose window is not whole UTC days reads each
   * release (the window exactly as asked) instead of the day rollups; default EXACT_SCOPE_RELEASES.
   */
  exactScopeReleases?: number;
}

/** The settings when the history is not configured (its defaults: rate(5 minutes), 90 days). */
export const DEFAULT_RELIABILITY_SETTINGS: ReliabilitySettings = {
  auditIntervalSeconds: DEFAULT_AUDIT_INTERVAL_SECONDS,
  retentionDays: DEFAULT_RETENTION_DAYS,
};

export interface ReliabilityDeps extends HistoryDeps {
  settings: ReliabilitySettings;
  /** Tells an unknown release (404) from one not audited yet; and the chart of a release for --chart. */
  releases?: ReleaseStore;
  /** Overrides of the rules' defaults (tests, bench). */
  rules?: Partial<ReliabilityRules>;
}

export interface WindowRequest {
  since?: string;
  until?: string;
}

/** The window a report answers for: as asked, and the part the history can answer (with why not the rest). */
export interface ReportWindow {
  since: Date;
  until: Date;
  /** The asked window cut to what can have been observed: retention behind, now ahead. */
  observedSince: Date;
  observedUntil: Date;
  now: Date;
  notes: string[];
}

export const DEFAULT_WINDOW = "30d";

/** since/until (RFC 3339 or a duration ago), checked and cut to retention and now, saying so. */
export function resolveWindow(request: WindowRequest, now: Date, retentionDays: number): ReportWindow {
  const since = parseTime("since", request.since || DEFAULT_WINDOW, now)!;
  const until = parseTime("until", request.until, now) ?? now;
  if (since >= until) {
    throw new InvalidHistoryQueryError(`since (${since.toISOString()}) is not before until (${until.toISOString()})`);
  }
  if (since >= now) throw new InvalidHistoryQueryError(`since (${since.toISOString()}) is in the future`);
  const notes: string[] = [];
  const retained = retainedSince(now, retentionDays);
  let observedSince = since;
  if (since < retained) {
    observedSince = retained;
    notes.push(
      `the window starts before the history's retention (${retentionDays} days): answered from ${retained.toISOString()}`,
    );
  }
  let observedUntil = until;
  if (until > now) {
    observedUntil = now;
    notes.push(`the window ends in the future: answered until now (${now.toISOString()})`);
  }
  return { since, until, observedSince, observedUntil, now, notes };
}

export function rulesOf(deps: Pick<ReliabilityDeps, "settings" | "rules">): ReliabilityRules {
  return { ...defaultRules(deps.settings.auditIntervalSeconds * 1000), ...deps.rules };
}

/** The report's figures: the sums and the ratios derived from them. */
export interface ReliabilityFigures extends ReliabilityRatios {
  windowMs: number;
  coveredMs: number;
  timeInHealthMs: ReliabilityTotals["timeInHealthMs"];
  incidents: { count: number; recovered: number; open: number };
  flaps: number;
  deploys: { count: number; failed: number; pending: number };
}

export function figuresOf(totals: ReliabilityTotals): ReliabilityFigures {
  return {
    ...deriveRatios(totals),
    windowMs: totals.windowMs,
    coveredMs: Math.round(totals.coveredMs),
    timeInHealthMs: Object.fromEntries(
      Object.entries(totals.timeInHealthMs).map(([h, ms]) => [h, Math.round(ms)]),
    ) as ReliabilityTotals["timeInHealthMs"],
    incidents: { count: totals.incidents, recovered: totals.recovered, open: totals.incidents - totals.recovered },
    flaps: totals.flaps,
    deploys: { count: totals.deploys, failed: totals.failedDeploys, pending: totals.pendingDeploys },
  };
}

export interface ReportRules {
  auditIntervalMs: number;
  gapAfterMs: number;
  longUnhealthyMs: number;
  flapWithinMs: number;
  changeFailureWithinMs: number;
}

export function reportRules(rules: ReliabilityRules): ReportRules {
  return {
    auditIntervalMs: rules.intervalMs,
    gapAfterMs: gapThresholdMs(rules),
    longUnhealthyMs: rules.longUnhealthyMs,
    flapWithinMs: rules.flapWithinMs,
    changeFailureWithinMs: rules.changeFailureWithinMs,
  };
}

/** The documented document of one release's report (GET .../reliability, `reliability RELEASE -o json`). */
export interface ReleaseReliabilityReport extends ReliabilityFigures {
  release: ReleaseKey;
  window: { since: string; until: string; observedSince: string; observedUntil: string };
  notes: string[];
  incidentList: Incident[];
  deployList: ReturnType<typeof releaseReliability>["deploys"];
  firstObservedAt?: string;
  /** With a `helm-status/slo` objective: the error budget and its burn rates (shared/snapshots/slo.ts). */
  slo?: SloReport;
  rules: ReportRules;
}

/** Most snapshots one report reads (a release that changed every audit for 90 days has 25,920). */
export const MAX_SNAPSHOTS_READ = 20_000;
const PAGE = 1000;

export async function reliabilityOfRelease(
  deps: ReliabilityDeps,
  key: ReleaseKey,
  request: WindowRequest,
): Promise<ReleaseReliabilityReport> {
  const release = releaseInScope(deps.clusters, key);
  const window = resolveWindow(request, deps.clock.now(), deps.settings.retentionDays);
  const rules = rulesOf(deps);
  const objective = await releaseObjective(deps, release);
  // Burn rates look back 3 days from now, whatever the window: read that far when the window ends now.
  const burnSince = new Date(window.now.getTime() - LONGEST_BURN_WINDOW_MS);
  const withSlo = objective.objective !== undefined && window.observedUntil >= window.now;
  const readWindow = withSlo && burnSince < window.observedSince ? { ...window, observedSince: burnSince } : window;
  const { snapshots, notes } = await readCovering(deps, release, readWindow, rules);
  if (snapshots.length === 0) await requireRelease(deps, release, window, objective.notStored);
  const span = {
    since: window.observedSince.getTime(),
    until: window.observedUntil.getTime(),
    now: window.now.getTime(),
  };
  const result = releaseReliability(snapshots, span, rules);
  const allNotes = [...window.notes, ...notes];
  if (objective.note) allNotes.push(objective.note);
  let slo: SloReport | undefined;
  if (objective.objective !== undefined) {
    if (withSlo) {
      const report = sloReport(buildTimeline(snapshots, span.now, rules).pieces, objective.objective, span);
      slo = { ...report, source: objective.source ?? "annotation" };
    } else allNotes.push("the window ends before now: no burn rates (they end now)");
  }
  if (result.firstObservedAt && Date.parse(result.firstObservedAt) > window.observedSince.getTime()) {
    allNotes.push(`the audits first saw this release at ${result.firstObservedAt}: time before that is not covered`);
  }
  return {
    release,
    window: windowDocument(window),
    notes: allNotes,
    ...figuresOf(result.totals),
    incidentList: result.incidents,
    deployList: result.deploys,
    ...(result.firstObservedAt ? { firstObservedAt: result.firstObservedAt } : {}),
    ...(slo ? { slo } : {}),
    rules: reportRules(rules),
  };
}

/**
 * The release's objective: its latest revision's annotation, else the cluster's registry entry (a release no
 * longer stored keeps the registry's). `notStored`: the store's 404, kept so requireRelease does not read again.
 */
async function releaseObjective(
  deps: ReliabilityDeps,
  release: ReleaseKey,
): Promise<ReturnType<typeof objectiveOf> & { notStored?: ReleaseNotFoundError }> {
  let manifest: string | undefined;
  let notStored: ReleaseNotFoundError | undefined;
  try {
    if (deps.releases) manifest = (await deps.releases.getLatest(release)).manifest;
  } catch (error) {
    if (!(error instanceof ReleaseNotFoundError)) throw error;
    notStored = error;
  }
  const objective = objectiveOf(manifest, release, registryObjectives(deps.clusters, release.cluster));
  return notStored ? { ...objective, notStored } : objective;
}

export function windowDocument(window: ReportWindow) {
  return {
    since: window.since.toISOString(),
    until: window.until.toISOString(),
    observedSince: window.observedSince.toISOString(),
    observedUntil: window.observedUntil.toISOString(),
  };
}

/**
 * The snapshots that can matter for the window: every one seen from a little before it (a health held into the
 * window, a flap or deploy at its start needs the change before) to its end, and the one before those. Bounded.
 */
export async function readCovering(
  deps: Pick<HistoryDeps, "snapshots">,
  release: ReleaseKey,
  window: ReportWindow,
  rules: ReliabilityRules,
): Promise<{ snapshots: Snapshot[]; notes: string[] }> {
  const lookback = Math.max(gapThresholdMs(rules), rules.flapWithinMs);
  const since = new Date(window.observedSince.getTime() - lookback);
  const snapshots: Snapshot[] = [];
  const notes: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await deps.snapshots.list(
      release,
      { since, until: window.observedUntil, limit: PAGE, cursor },
      window.now,
    );
    snapshots.push(...page.items);
    cursor = page.cursor;
    if (cursor && snapshots.length >= MAX_SNAPSHOTS_READ) {
      notes.push(`more than ${MAX_SNAPSHOTS_READ} snapshots in the window: answered for the newest of them`);
      break;
    }
  } while (cursor);
  const oldest = snapshots.at(-1);
  if (oldest?.previousId) {
    const before = await deps.snapshots.list(
      release,
      { until: new Date(Date.parse(oldest.firstSeenAt) - 1), limit: 1 },
      window.now,
    );
    const previous = before.items[0];
    if (previous && previous.runId < oldest.runId) snapshots.push(previous);
  }
  return { snapshots, notes };
}

/** No snapshot in the window: an unknown release is a 404; a known one answers "no audits yet". */
async function requireRelease(
  deps: ReliabilityDeps,
  release: ReleaseKey,
  window: ReportWindow,
  notStored: ReleaseNotFoundError | undefined,
): Promise<void> {
  const latest = await deps.snapshots.latest(release);
  if (latest && !expired(latest, window.now)) {
    window.notes.push("the audits did not see this release in the window");
    return;
  }
  if (!deps.releases) {
    window.notes.push("no audits of this release yet");
    return;
  }
  // ReleaseNotFoundError (404) when the store has no such release either (releaseObjective read it already).
  if (notStored) throw notStored;
  window.notes.push("no audits of this release yet: run `audit` or wait for the scheduled audits");
}
