/**
 * Health over time, for pictures: a release's run-length snapshots in a time range as stripes (one per
 * snapshot, clipped to the range) with the revision, drift and health changes as events; and the fleet's
 * count of releases per health over the same range, sampled in buckets. Reads only the snapshots table:
 * a release's range is one Query (a stretch of unchanged health is one item, however many audits saw it).
 */
import { requireKnownCluster } from "../clusters/scope.ts";
import { ValidationError } from "../errors.ts";
import type { HealthStatus } from "../health/index.ts";
import type { ReleaseKey } from "../release/model.ts";
import { validateReleaseKey } from "../release/validation.ts";
import { InvalidHistoryQueryError } from "../snapshots/errors.ts";
import type { Change, Snapshot } from "../snapshots/model.ts";
import { DAY_MS } from "../snapshots/retention.ts";
import { readAllPages } from "../store/paging.ts";
import { type FleetDeps, fleetReleases } from "./fleet.ts";
import { forCaller, type HistoryDeps, parseTime } from "./snapshots.ts";

export interface TimelineStripe {
  snapshotId: string;
  /** The part of the range this snapshot covers: its first and last audit, clipped. */
  from: string;
  to: string;
  firstSeenAt: string;
  lastSeenAt: string;
  seenCount: number;
  health: HealthStatus;
  message: string;
  revision: number;
  driftCount: number;
  missing: number;
  /** Why it was not Current: the first cause chain the audit kept (docs/status.md "WHY"). */
  cause?: string;
}

export interface TimelineEvent {
  at: string;
  snapshotId: string;
  kind: "revision" | "drift" | "health" | "missing";
  text: string;
}

export interface ReleaseTimeline {
  release: ReleaseKey;
  since: string;
  until: string;
  stripes: TimelineStripe[];
  events: TimelineEvent[];
  /** Snapshot items the store returned for it (the query's cost). */
  itemsRead: number;
}

const DEFAULT_RANGE = "24h";
const MAX_RANGE_MS = 92 * DAY_MS;

export function timeRange(now: Date, since: string | undefined, until: string | undefined) {
  const from = parseTime("since", since || DEFAULT_RANGE, now)!;
  const to = parseTime("until", until, now) ?? now;
  if (from >= to)
    throw new InvalidHistoryQueryError(`since (${from.toISOString()}) is not before until (${to.toISOString()})`);
  if (to.getTime() - from.getTime() > MAX_RANGE_MS) {
    throw new InvalidHistoryQueryError("the range is longer than 92 days (snapshots are kept 90 days)");
  }
  return { from, to };
}

export async function releaseTimeline(
  deps: HistoryDeps,
  key: ReleaseKey,
  request: { since?: string; until?: string },
): Promise<ReleaseTimeline> {
  const release = validateReleaseKey(key);
  requireKnownCluster(deps.clusters, release.cluster, release.namespace);
  const now = deps.clock.now();
  const { from, to } = timeRange(now, request.since, request.until);
  const snapshots = await readAllPages((cursor) =>
    deps.snapshots.list(release, { since: from, until: to, limit: 1000, cursor }, now),
  );
  // As the caller may see each (objects in namespaces their access does not cover left out).
  const oldestFirst = snapshots.reverse().map((snapshot) => forCaller(deps.clusters, snapshot));
  const clip = (at: string, lo: Date, hi: Date) =>
    new Date(Math.min(Math.max(Date.parse(at), lo.getTime()), hi.getTime())).toISOString();
  const stripes = oldestFirst.map((s, i) => {
    // A stretch lasts until the next one begins (the audits between saw it), or its last audit.
    const end = oldestFirst[i + 1]?.firstSeenAt ?? s.lastSeenAt;
    return {
      snapshotId: s.id,
      from: clip(s.firstSeenAt, from, to),
      to: clip(end, from, to),
      firstSeenAt: s.firstSeenAt,
      lastSeenAt: s.lastSeenAt,
      seenCount: s.seenCount,
      health: s.health.overall,
      message: s.health.message,
      revision: s.revision,
      driftCount: driftCountOf(s),
      missing: s.missing.length,
      ...(s.causes?.length ? { cause: s.causes[0].text } : {}),
    } satisfies TimelineStripe;
  });
  const events = oldestFirst.flatMap((s) => eventsOf(s));
  return {
    release,
    since: from.toISOString(),
    until: to.toISOString(),
    stripes,
    events,
    itemsRead: snapshots.length,
  };
}

export function driftCountOf(snapshot: Pick<Snapshot, "drift" | "driftTotal">): number {
  return snapshot.driftTotal ?? snapshot.drift?.length ?? 0;
}

function eventsOf(snapshot: Snapshot): TimelineEvent[] {
  const event = (kind: TimelineEvent["kind"], text: string) => ({
    at: snapshot.firstSeenAt,
    snapshotId: snapshot.id,
    kind,
    text,
  });
  const byKind = (prefix: string) => snapshot.changes.filter((c) => c.kind.startsWith(prefix));
  const out: TimelineEvent[] = [];
  for (const c of byKind("revision")) out.push(event("revision", `revision ${c.from} -> ${c.to}`));
  for (const c of byKind("health")) out.push(event("health", `health ${c.from} -> ${c.to}`));
  const drift = byKind("drift-");
  if (drift.length > 0) out.push(event("drift", drift.map(changeText).join("; ")));
  const missing = byKind("missing-");
  if (missing.length > 0) out.push(event("missing", missing.map(changeText).join("; ")));
  return out;
}

function changeText(change: Change): string {
  const what = change.kind.replace(/-/g, " ");
  const values = [change.from, change.to].filter((v) => v !== undefined).join(" -> ");
  return [what, change.subject, values].filter(Boolean).join(": ");
}

/** The healths a fleet timeline counts (the others are Current or of little interest over time). */
export const FLEET_TIMELINE_HEALTHS = ["Failed", "InProgress", "Unknown"] as const;

export interface FleetTimeline {
  since: string;
  until: string;
  /** Bucket start times; counts[health][i] releases were in that health at the bucket's end. */
  buckets: string[];
  counts: Record<(typeof FLEET_TIMELINE_HEALTHS)[number], number[]>;
  /** Releases whose history was read, and whether the fleet had more than FLEET_TIMELINE_MAX_RELEASES. */
  releases: number;
  truncated: boolean;
  itemsRead: number;
}

export const FLEET_TIMELINE_MAX_RELEASES = 1000;
const BUCKETS = 96;
const READS_AT_ONCE = 8;

/** How many releases were Failed / InProgress / Unknown over time, among the releases the caller may see. */
export async function fleetTimeline(
  deps: FleetDeps,
  request: { since?: string; until?: string; cluster?: string; namespace?: string },
): Promise<FleetTimeline> {
  const now = deps.clock.now();
  const { from, to } = timeRange(now, request.since, request.until);
  const fleet = await fleetReleases(
    deps,
    {
      cluster: request.cluster,
      namespace: request.namespace,
      limit: FLEET_TIMELINE_MAX_RELEASES,
    },
    { drift: false },
  );
  const audited = fleet.releases.filter((row) => row.snapshotId);
  const step = (to.getTime() - from.getTime()) / BUCKETS;
  const buckets = Array.from({ length: BUCKETS }, (_, i) => new Date(from.getTime() + i * step).toISOString());
  const counts = Object.fromEntries(
    FLEET_TIMELINE_HEALTHS.map((h) => [h, new Array(BUCKETS).fill(0)]),
  ) as FleetTimeline["counts"];
  // The latest snapshot still holds between audits: up to a bucket (or 15 minutes) after its last one.
  const tolerance = Math.max(step, 15 * 60_000);
  let itemsRead = 0;
  for (let i = 0; i < audited.length; i += READS_AT_ONCE) {
    await Promise.all(
      audited.slice(i, i + READS_AT_ONCE).map(async (row) => {
        const list = await readAllPages((cursor) =>
          deps.snapshots.list(row, { since: from, until: to, limit: 1000, cursor }, now),
        );
        itemsRead += list.length;
        const oldestFirst = list.reverse();
        for (let b = 0; b < BUCKETS; b++) {
          const at = from.getTime() + (b + 1) * step;
          const s = stateAt(oldestFirst, at, tolerance);
          if (s && (FLEET_TIMELINE_HEALTHS as readonly string[]).includes(s)) {
            counts[s as (typeof FLEET_TIMELINE_HEALTHS)[number]][b]++;
          }
        }
      }),
    );
  }
  if (step <= 0) throw new ValidationError("the range is empty", "InvalidRange");
  return {
    since: from.toISOString(),
    until: to.toISOString(),
    buckets,
    counts,
    releases: audited.length,
    truncated: fleet.total > FLEET_TIMELINE_MAX_RELEASES,
    itemsRead,
  };
}

/** The health at `at` (epoch ms): the last snapshot begun by then, while audits still saw it or a later one. */
function stateAt(oldestFirst: Snapshot[], at: number, toleranceMs: number): HealthStatus | undefined {
  let found: Snapshot | undefined;
  for (const s of oldestFirst) {
    if (Date.parse(s.firstSeenAt) <= at) found = s;
    else break;
  }
  if (!found) return undefined;
  const isLast = found === oldestFirst.at(-1);
  return isLast && Date.parse(found.lastSeenAt) < at - toleranceMs ? undefined : found.health.overall;
}
