/**
 * Reliability of one release over a window, from its timeline (timeline.ts). Pure. Every figure is a sum
 * (`ReliabilityTotals`) so releases, days and clusters add up, and the ratios are derived from the sums in one
 * place (`deriveRatios`). Definitions (docs/history.md "Reliability"):
 *
 * - availability: time in Current / covered time (a gap counts in neither);
 * - an incident: a run of consecutive non-Current snapshots that holds Failed, Unknown or NotFound, or that
 *   lasts longer than `longUnhealthyMs` (a rollout's InProgress is not an incident until it drags on); it starts
 *   where the first of them starts and ends where the next Current snapshot starts (open until then);
 * - MTTR: mean duration of the incidents that started in the window and have ended;
 * - MTBF: time in Current in the window / incidents that started in it;
 * - a flap: a health change less than `flapWithinMs` after the previous health change;
 * - a deploy: a snapshot whose revision differs from the one before it (or a first-seen revision 1, an install);
 * - a failed deploy: one an incident overlaps within `changeFailureWithinMs` after it (and before the next
 *   deploy); a deploy whose span has not passed yet and saw no incident is pending (in neither the failed count
 *   nor the rate's denominator).
 */
import { HEALTH_STATUSES, type HealthStatus } from "../health/index.ts";
import {
  buildTimeline,
  coveredTime,
  type TimelineEntry,
  type TimelineOptions,
  type TimelineSnapshot,
} from "./timeline.ts";

export interface ReliabilityRules extends TimelineOptions {
  /** An unhealthy run (InProgress, Terminating) longer than this is an incident (default 15 min). */
  longUnhealthyMs: number;
  /** A health change this soon after the previous one is a flap (default 15 min). */
  flapWithinMs: number;
  /** A deploy followed by an incident within this span is a failed change (default 1 h). */
  changeFailureWithinMs: number;
}

const MINUTE = 60_000;
/** AUDIT_SCHEDULE's default period, rate(5 minutes). */
export const DEFAULT_AUDIT_INTERVAL_SECONDS = 300;

export function defaultRules(intervalMs = DEFAULT_AUDIT_INTERVAL_SECONDS * 1000): ReliabilityRules {
  return { intervalMs, longUnhealthyMs: 15 * MINUTE, flapWithinMs: 15 * MINUTE, changeFailureWithinMs: 60 * MINUTE };
}

/** Additive figures: sum them across releases or days, then derive the ratios. */
export interface ReliabilityTotals {
  windowMs: number;
  coveredMs: number;
  timeInHealthMs: Record<HealthStatus, number>;
  incidents: number;
  /** Of those, how many ended, and their summed durations (for MTTR). */
  recovered: number;
  recoveryMs: number;
  flaps: number;
  deploys: number;
  failedDeploys: number;
  pendingDeploys: number;
}

export interface Incident {
  start: string;
  /** Absent while it lasts. */
  end?: string;
  durationMs?: number;
  /** The worst health it reached (Failed first). */
  worst: HealthStatus;
  /** The snapshot that opened it. */
  snapshotId: string;
  /** Audits did not look for part of it. */
  acrossGap: boolean;
  /** Why: the first cause chain the audits kept during it (docs/status.md "WHY"), long after the events expired. */
  cause?: string;
}

export interface ReleaseReliability {
  totals: ReliabilityTotals;
  incidents: Incident[];
  deploys: { at: string; revision: number; failed: boolean; pending: boolean; snapshotId: string }[];
  /** The start of the release's observed history, if any. */
  firstObservedAt?: string;
}

const INCIDENT_HEALTHS = new Set<HealthStatus>(["Failed", "Unknown", "NotFound"]);
const WORST_FIRST: HealthStatus[] = ["Failed", "Unknown", "NotFound", "Terminating", "InProgress", "Current"];

export function emptyTotals(windowMs = 0): ReliabilityTotals {
  return {
    windowMs,
    coveredMs: 0,
    timeInHealthMs: Object.fromEntries(HEALTH_STATUSES.map((h) => [h, 0])) as Record<HealthStatus, number>,
    incidents: 0,
    recovered: 0,
    recoveryMs: 0,
    flaps: 0,
    deploys: 0,
    failedDeploys: 0,
    pendingDeploys: 0,
  };
}

export function addTotals(into: ReliabilityTotals, add: ReliabilityTotals): ReliabilityTotals {
  into.windowMs += add.windowMs;
  into.coveredMs += add.coveredMs;
  for (const h of HEALTH_STATUSES) into.timeInHealthMs[h] += add.timeInHealthMs[h];
  into.incidents += add.incidents;
  into.recovered += add.recovered;
  into.recoveryMs += add.recoveryMs;
  into.flaps += add.flaps;
  into.deploys += add.deploys;
  into.failedDeploys += add.failedDeploys;
  into.pendingDeploys += add.pendingDeploys;
  return into;
}

export interface ReliabilityRatios {
  /** Time in Current / covered time; null when nothing was covered. */
  availability: number | null;
  /** Covered time / window. */
  coverage: number;
  mttrMs: number | null;
  mtbfMs: number | null;
  changeFailureRate: number | null;
}

export function deriveRatios(t: ReliabilityTotals): ReliabilityRatios {
  const decided = t.deploys - t.pendingDeploys;
  return {
    availability: t.coveredMs > 0 ? t.timeInHealthMs.Current / t.coveredMs : null,
    coverage: t.windowMs > 0 ? t.coveredMs / t.windowMs : 0,
    mttrMs: t.recovered > 0 ? t.recoveryMs / t.recovered : null,
    mtbfMs: t.incidents > 0 ? t.timeInHealthMs.Current / t.incidents : null,
    changeFailureRate: decided > 0 ? t.failedDeploys / decided : null,
  };
}

/**
 * The release's reliability over [since, until) as of `now`. `snapshots` must include every snapshot that
 * overlaps the window and, for changes at its start, the one before it.
 */
export function releaseReliability(
  snapshots: readonly TimelineSnapshot[],
  window: { since: number; until: number; now: number },
  rules: ReliabilityRules,
): ReleaseReliability {
  const { since, until, now } = window;
  const timeline = buildTimeline(snapshots, now, rules);
  const totals = emptyTotals(Math.max(0, until - since));
  const covered = coveredTime(timeline.pieces, since, until);
  totals.coveredMs = covered.covered;
  for (const [health, ms] of covered.perHealth) totals.timeInHealthMs[health] += ms;

  const inWindow = (t: number) => t >= since && t < until;
  const allIncidents = incidentsOf(timeline.entries, timeline.gaps, now, rules);
  const incidents = allIncidents.filter((i) => inWindow(i.startMs));
  totals.incidents = incidents.length;
  for (const incident of incidents) {
    if (incident.endMs === undefined) continue;
    totals.recovered += 1;
    totals.recoveryMs += incident.endMs - incident.startMs;
  }

  totals.flaps = healthChanges(timeline.entries).filter(
    (change) => change.sincePrevious !== undefined && change.sincePrevious < rules.flapWithinMs && inWindow(change.at),
  ).length;

  const allDeploys = deploysOf(timeline.entries);
  const deploys = allDeploys
    .map((d, i) => ({ ...d, next: allDeploys[i + 1]?.at }))
    .filter((d) => inWindow(d.at))
    .map((d) => {
      // An incident after the next deploy is that deploy's, not this one's.
      const spanEnd = Math.min(d.at + rules.changeFailureWithinMs, d.next ?? Number.POSITIVE_INFINITY);
      const failed = allIncidents.some((i) => i.startMs < spanEnd && (i.endMs ?? now) > d.at);
      const pending = !failed && d.next === undefined && spanEnd > now;
      return {
        at: new Date(d.at).toISOString(),
        revision: d.revision,
        failed,
        pending,
        snapshotId: d.snapshotId,
      };
    });
  totals.deploys = deploys.length;
  totals.failedDeploys = deploys.filter((d) => d.failed).length;
  totals.pendingDeploys = deploys.filter((d) => d.pending).length;

  const first = timeline.entries[0];
  return {
    totals,
    incidents: incidents.map(({ startMs, endMs, ...rest }) => ({
      start: new Date(startMs).toISOString(),
      ...(endMs !== undefined ? { end: new Date(endMs).toISOString(), durationMs: endMs - startMs } : {}),
      ...rest,
    })),
    deploys,
    ...(first ? { firstObservedAt: new Date(first.start).toISOString() } : {}),
  };
}

interface FoundIncident {
  startMs: number;
  endMs?: number;
  worst: HealthStatus;
  snapshotId: string;
  acrossGap: boolean;
  cause?: string;
}

function incidentsOf(
  entries: readonly TimelineEntry[],
  gaps: readonly { start: number; end: number }[],
  now: number,
  rules: ReliabilityRules,
): FoundIncident[] {
  const found: FoundIncident[] = [];
  let i = 0;
  while (i < entries.length) {
    if (entries[i].snapshot.health.overall === "Current") {
      i++;
      continue;
    }
    const opened = entries[i];
    let worst: HealthStatus = opened.snapshot.health.overall;
    let j = i;
    while (j < entries.length && entries[j].snapshot.health.overall !== "Current") {
      const health = entries[j].snapshot.health.overall;
      if (WORST_FIRST.indexOf(health) < WORST_FIRST.indexOf(worst)) worst = health;
      j++;
    }
    const endMs = j < entries.length ? entries[j].start : undefined;
    const lasted = (endMs ?? now) - opened.start;
    if (INCIDENT_HEALTHS.has(worst) || lasted > rules.longUnhealthyMs) {
      const acrossGap = gaps.some((g) => g.start >= opened.start && g.start < (endMs ?? now));
      const cause = entries.slice(i, j).find((entry) => entry.snapshot.causes?.length)?.snapshot.causes?.[0].text;
      const incident: FoundIncident = {
        startMs: opened.start,
        endMs,
        worst,
        snapshotId: opened.snapshot.id,
        acrossGap,
      };
      found.push(cause ? { ...incident, cause } : incident);
    }
    i = j;
  }
  return found;
}

/** Each change of health, with the time since the change before it (none for the first). */
function healthChanges(entries: readonly TimelineEntry[]): { at: number; sincePrevious?: number }[] {
  const changes: { at: number; sincePrevious?: number }[] = [];
  let previousChange: number | undefined;
  for (let i = 1; i < entries.length; i++) {
    if (entries[i].snapshot.health.overall === entries[i - 1].snapshot.health.overall) continue;
    const at = entries[i].start;
    changes.push(previousChange === undefined ? { at } : { at, sincePrevious: at - previousChange });
    previousChange = at;
  }
  return changes;
}

function deploysOf(entries: readonly TimelineEntry[]): { at: number; revision: number; snapshotId: string }[] {
  const deploys: { at: number; revision: number; snapshotId: string }[] = [];
  for (let i = 0; i < entries.length; i++) {
    const { snapshot, start } = entries[i];
    const before = entries[i - 1]?.snapshot;
    const isDeploy = before ? before.revision !== snapshot.revision : snapshot.revision === 1;
    if (isDeploy) deploys.push({ at: start, revision: snapshot.revision, snapshotId: snapshot.id });
  }
  return deploys;
}
