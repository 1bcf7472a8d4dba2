/**
 * Per-day rollups of the reliability figures, added up by the audit worker as it records (docs/history.md
 * "Rollups"). Pure: what one audit's sighting of one release adds to which UTC day, with the definitions of
 * reliability.ts, so a fleet report sums day items instead of reading every release's snapshots.
 *
 * - Time: the stretch from the release's previous sighting to this one is its previous health's, covered, when it
 *   is within the gap threshold (the timeline's rule); a longer silence is a gap, counted in no health. (The
 *   release report only knows a snapshot's sighting count, so it spreads a silence inside one snapshot over the
 *   snapshot; the rollup knows where it was.)
 * - Events are counted in the day they start, as the report counts them in the window they start in: a flap where
 *   the health changed, a deploy where the revision changed, an incident on the day its unhealthy run began (when it
 *   becomes one: at once for Failed/Unknown/NotFound, at the first sighting past `longUnhealthyMs` otherwise), its
 *   recovery (and duration) on that same day when the next Current snapshot starts.
 * - A deploy is pending (+1) on its day until an incident fails it or a sighting comes after its span.
 *
 * What a later sighting needs to know about the history (the open unhealthy run, the last health change, deploys
 * still undecided) is carried on each snapshot as it is created (`RollupState`, model.ts), so no audit reads more
 * history.
 */
import { HEALTH_STATUSES, type HealthStatus } from "../health/index.ts";
import type { RollupState } from "./model.ts";
import type { ReliabilityRules } from "./reliability.ts";
import { DAY_MS } from "./retention.ts";
import { gapThresholdMs } from "./timeline.ts";

/** The additive figures of one day (all optional: an item only holds what was added). */
export const ROLLUP_FIELDS = [
  "covered",
  ...HEALTH_STATUSES,
  "incidents",
  "recovered",
  "recoveryMs",
  "flaps",
  "deploys",
  "failedDeploys",
  "pendingDeploys",
  /** Releases the audits saw that day (each counted at its first sighting of the day). */
  "releases",
] as const;
export type RollupField = (typeof ROLLUP_FIELDS)[number];
export type DayFigures = Partial<Record<RollupField, number>>;

/** Carried on each snapshot from its creation: the history a later sighting of the release needs. */
/** The latest snapshot before a sighting, as far as the rollups need it. */
export interface SightingBefore {
  health: HealthStatus;
  revision: number;
  firstSeenAt: number;
  /** The previous sighting (epoch ms). */
  lastSeenAt: number;
  /** Absent on snapshots written before the rollups existed. */
  state?: RollupState;
}

export interface Sighting {
  /** Absent for a release's first snapshot (or the first after its history expired). */
  before?: SightingBefore;
  health: HealthStatus;
  revision: number;
  /** When this audit saw it (epoch ms). */
  at: number;
  /** A new snapshot (a change, or a first one); false: the latest one extended. */
  created: boolean;
}

export interface SightingFigures {
  /** Per UTC day (YYYY-MM-DD). */
  days: Map<string, DayFigures>;
  /** Time not in Current, per day (the worst list's ranking). */
  unhealthyMs: Map<string, number>;
  /** The state the new snapshot carries (for an extend: the same as before). */
  state: RollupState;
}

const INCIDENT_HEALTHS = new Set<HealthStatus>(["Failed", "Unknown", "NotFound"]);
const WORST_FIRST: HealthStatus[] = ["Failed", "Unknown", "NotFound", "Terminating", "InProgress", "Current"];
/** Undecided deploys carried at most (a release deploying more often than this during one incident is rare). */
const MAX_CARRIED_DEPLOYS = 20;

export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function dayStart(day: string): number {
  return Date.parse(`${day}T00:00:00.000Z`);
}

/** The days from `fromMs`'s to the one before `toMs` (exclusive end), oldest first. */
export function daysBetween(fromMs: number, toMs: number): string[] {
  const days: string[] = [];
  for (let at = dayStart(dayOf(fromMs)); at < toMs; at += DAY_MS) days.push(dayOf(at));
  return days;
}

const worse = (a: HealthStatus, b: HealthStatus) => (WORST_FIRST.indexOf(a) <= WORST_FIRST.indexOf(b) ? a : b);

export function foldSighting(sighting: Sighting, rules: ReliabilityRules): SightingFigures {
  const { before, health, created } = sighting;
  const days = new Map<string, DayFigures>();
  const unhealthyMs = new Map<string, number>();
  const add = (at: number, field: RollupField, value: number) => {
    const day = days.get(dayOf(at)) ?? {};
    day[field] = (day[field] ?? 0) + value;
    days.set(dayOf(at), day);
  };
  // A new snapshot starts where the previous sighting was, if a skewed clock says earlier (timeline.ts).
  const x = before ? Math.max(sighting.at, before.lastSeenAt) : sighting.at;
  const tp = before?.lastSeenAt;

  if (before && tp !== undefined && x > tp && x - tp <= gapThresholdMs(rules)) {
    for (let from = tp; from < x; ) {
      const to = Math.min(x, dayStart(dayOf(from)) + DAY_MS);
      add(from, "covered", to - from);
      add(from, before.health, to - from);
      if (before.health !== "Current") unhealthyMs.set(dayOf(from), (unhealthyMs.get(dayOf(from)) ?? 0) + to - from);
      from = to;
    }
  }
  if (tp === undefined || dayOf(tp) !== dayOf(x)) add(x, "releases", 1);

  const carried = before?.state ?? legacyState(before);
  let lastChangeAt = carried.lastChangeAt;
  const deploys = carried.deploys.map((d) => ({ ...d, isNew: false }));
  if (created) {
    if (before && before.health !== health) {
      if (lastChangeAt !== undefined && x - lastChangeAt < rules.flapWithinMs) add(x, "flaps", 1);
      lastChangeAt = x;
    }
    const isDeploy = before ? before.revision !== sighting.revision : sighting.revision === 1;
    if (isDeploy) {
      for (const d of deploys) d.next ??= x;
      deploys.push({ at: x, isNew: true });
      add(x, "deploys", 1);
      add(x, "pendingDeploys", 1);
    }
  }

  // The unhealthy run before this sighting, and after it (ended here when this one is Current).
  const previousRun = before && before.health !== "Current" ? (carried.run ?? legacyState(before).run) : undefined;
  const countedBefore =
    previousRun !== undefined &&
    (INCIDENT_HEALTHS.has(previousRun.worst) || tp! - previousRun.start > rules.longUnhealthyMs);
  let run: RollupState["run"];
  let endedAt: number | undefined;
  if (health !== "Current") {
    run = previousRun
      ? { start: previousRun.start, worst: worse(previousRun.worst, health) }
      : { start: x, worst: health };
  } else if (previousRun) {
    run = previousRun;
    endedAt = x;
  }
  const countedNow =
    run !== undefined && (INCIDENT_HEALTHS.has(run.worst) || (endedAt ?? x) - run.start > rules.longUnhealthyMs);
  if (run && countedNow && !countedBefore) add(run.start, "incidents", 1);
  if (run && endedAt !== undefined && countedNow) {
    add(run.start, "recovered", 1);
    add(run.start, "recoveryMs", endedAt - run.start);
  }

  for (const d of deploys) {
    const spanEnd = Math.min(d.at + rules.changeFailureWithinMs, d.next ?? Number.POSITIVE_INFINITY);
    const overlaps = (r: { start: number }, end: number) => r.start < spanEnd && end > d.at;
    const failedBefore =
      !d.isNew && (d.failed === true || (countedBefore && overlaps(previousRun!, Number.POSITIVE_INFINITY)));
    const failedNow = failedBefore || (countedNow && overlaps(run!, endedAt ?? Number.POSITIVE_INFINITY));
    // Decided before: failed, or an earlier sighting came after its span as it was known then.
    const knownEnd = Math.min(
      d.at + rules.changeFailureWithinMs,
      d.next !== undefined && tp !== undefined && d.next <= tp ? d.next : Number.POSITIVE_INFINITY,
    );
    const decidedBefore = failedBefore || (!d.isNew && tp !== undefined && tp >= knownEnd);
    if (failedNow && !failedBefore) {
      add(d.at, "failedDeploys", 1);
      if (!decidedBefore) add(d.at, "pendingDeploys", -1);
    } else if (!failedNow && !decidedBefore && x >= spanEnd) {
      add(d.at, "pendingDeploys", -1);
    }
    d.failed = failedNow;
  }

  const openRun = run && endedAt === undefined ? run : undefined;
  const stillOpen = deploys.filter((d) => {
    const spanEnd = Math.min(d.at + rules.changeFailureWithinMs, d.next ?? Number.POSITIVE_INFINITY);
    return !d.failed && (spanEnd > x || (openRun !== undefined && openRun.start < spanEnd));
  });
  const state: RollupState = {
    ...(openRun ? { run: openRun } : {}),
    ...(lastChangeAt !== undefined ? { lastChangeAt } : {}),
    deploys: stillOpen
      .slice(-MAX_CARRIED_DEPLOYS)
      .map(({ at, next, failed }) => ({ at, ...(next !== undefined ? { next } : {}), ...(failed ? { failed } : {}) })),
  };
  return { days, unhealthyMs, state };
}

/**
 * A snapshot from before the rollups: its unhealthy run is taken to start with it, no health change or deploy is
 * known (docs/history.md "Rollups": the first days after the upgrade can miss a flap or a change failure).
 */
function legacyState(before: SightingBefore | undefined): RollupState {
  if (!before || before.health === "Current") return { deploys: [] };
  return { run: { start: before.firstSeenAt, worst: before.health }, deploys: [] };
}
