/**
 * A release's run-length snapshots as a timeline of what the audits observed, and of what they did not.
 * Pure: no store, no clock (the caller says what "now" is). Definitions (docs/history.md "Reliability"):
 *
 * - The history's order is the run ids' (the planner's slots), not the workers' clocks: snapshots are taken in
 *   run-id order and a snapshot that a skewed clock says started before the previous one ended starts where the
 *   previous one ends (no time is counted twice, none goes backwards).
 * - A snapshot observed its health from its first to its last sighting. A health holds after its last sighting
 *   until the next snapshot's first one (or `now`) when that comes within the audit interval plus a tolerance
 *   (the queue's delay jitters the sighting within a slot); a longer silence is a **gap**: the audits did not look,
 *   so that time is counted in no health, never as healthy.
 * - Inside one snapshot, seen `seenCount` times, consecutive sightings can account for at most `(seenCount - 1)`
 *   gap thresholds: a stretch longer than that had audits missing somewhere inside (we do not know where), so the
 *   excess is uncovered, spread evenly over the stretch.
 */
import type { HealthStatus } from "../health/index.ts";
import { runIdTime } from "./model.ts";

/** What the timeline needs of a snapshot (a listing's summary has it). */
export interface TimelineSnapshot {
  id: string;
  runId: string;
  firstSeenAt: string;
  lastSeenAt: string;
  seenCount: number;
  revision: number;
  health: { overall: HealthStatus };
  /** Why it was not Current, as the audit saw it (model.ts `causes`): what an incident says it was about. */
  causes?: readonly { text: string }[];
}

export interface TimelineOptions {
  /** The audits' period (AUDIT_SCHEDULE). */
  intervalMs: number;
  /** Added to the interval before a silence counts as a gap (default: half the interval). */
  toleranceMs?: number;
}

/** A stretch of time attributed to one snapshot's health; `covered` is the share of it the audits observed. */
export interface TimelinePiece {
  start: number;
  end: number;
  health: HealthStatus;
  revision: number;
  snapshotId: string;
  covered: number;
}

/** One snapshot placed on the timeline: where its health began (after skew correction). */
export interface TimelineEntry {
  snapshot: TimelineSnapshot;
  start: number;
}

export interface Timeline {
  /** Oldest first, one per snapshot. */
  entries: TimelineEntry[];
  /** Oldest first, never overlapping; time in none of them (and uncovered shares) is not observed. */
  pieces: TimelinePiece[];
  /** Silences longer than the gap threshold, between sightings (not before the first or inside a snapshot). */
  gaps: { start: number; end: number }[];
}

export function gapThresholdMs(options: TimelineOptions): number {
  return options.intervalMs + (options.toleranceMs ?? options.intervalMs / 2);
}

/** Oldest first by run id (the schedule's order), whatever the workers' clocks said. */
export function inHistoryOrder<T extends TimelineSnapshot>(snapshots: readonly T[]): T[] {
  return [...snapshots].sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
}

export function buildTimeline(snapshots: readonly TimelineSnapshot[], now: number, options: TimelineOptions): Timeline {
  const threshold = gapThresholdMs(options);
  const ordered = inHistoryOrder(snapshots);
  const entries: TimelineEntry[] = [];
  const pieces: TimelinePiece[] = [];
  const gaps: Timeline["gaps"] = [];
  let previousEnd = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < ordered.length; i++) {
    const snapshot = ordered[i];
    const start = Math.max(timeOf(snapshot.firstSeenAt, snapshot.runId), previousEnd);
    const lastSeen = Math.min(Math.max(timeOf(snapshot.lastSeenAt, snapshot.runId), start), Math.max(now, start));
    entries.push({ snapshot, start });
    const piece = { health: snapshot.health.overall, revision: snapshot.revision, snapshotId: snapshot.id };
    const stretch = lastSeen - start;
    if (stretch > 0) {
      const accountable = Math.max(0, snapshot.seenCount - 1) * threshold;
      pieces.push({ ...piece, start, end: lastSeen, covered: Math.min(1, accountable / stretch) });
    }
    const next = ordered[i + 1];
    const nextStart = next ? Math.max(timeOf(next.firstSeenAt, next.runId), lastSeen) : Math.max(now, lastSeen);
    if (nextStart - lastSeen <= threshold) {
      if (nextStart > lastSeen) pieces.push({ ...piece, start: lastSeen, end: nextStart, covered: 1 });
    } else {
      gaps.push({ start: lastSeen, end: nextStart });
    }
    previousEnd = nextStart;
  }
  return { entries, pieces, gaps };
}

/** A sighting's time; a stored time that does not parse falls back to its run's slot. */
function timeOf(iso: string, runId: string): number {
  const at = Date.parse(iso);
  return Number.isNaN(at) ? runIdTime(runId).getTime() : at;
}

/** How much of [from, to) the pieces cover, per health (milliseconds, the covered share only). */
export function coveredTime(
  pieces: readonly TimelinePiece[],
  from: number,
  to: number,
): { perHealth: Map<HealthStatus, number>; covered: number } {
  const perHealth = new Map<HealthStatus, number>();
  let covered = 0;
  for (const piece of pieces) {
    const overlap = Math.min(piece.end, to) - Math.max(piece.start, from);
    if (overlap <= 0) continue;
    const ms = overlap * piece.covered;
    perHealth.set(piece.health, (perHealth.get(piece.health) ?? 0) + ms);
    covered += ms;
  }
  return { perHealth, covered };
}
