/**
 * Folds one observation into a release's history, idempotently per (runId, release):
 * - the latest snapshot was already seen by this run, by a later run, or at a later time by the worker's clock
 *   -> `duplicate` (nothing written). A run id ahead of the observation's own time (a forged or mis-dated run:
 *   issue #25 item 2) never counts as "later": ordering is by the workers' observation times, the run id only
 *   says whether this run was applied already, so one future run id cannot freeze a release;
 * - same digest -> extend it (lastSeenAt, seenCount), conditional on the digest;
 * - otherwise a new snapshot with the changes against the latest.
 * A lost race (another worker wrote first) re-reads and decides again, boundedly.
 */
import { changesBetween } from "../snapshots/changes.ts";
import { digestOf } from "../snapshots/digest.ts";
import { SnapshotWriteConflictError } from "../snapshots/errors.ts";
import { isRunAhead, type Observation, type Snapshot, snapshotIdOf } from "../snapshots/model.ts";
import { defaultRules, type ReliabilityRules } from "../snapshots/reliability.ts";
import { expired, expiresAtFor } from "../snapshots/retention.ts";
import { foldSighting, type Sighting, type SightingBefore, type SightingFigures } from "../snapshots/rollup.ts";
import type { SnapshotStore } from "../snapshots/snapshot-store.ts";
import { isStoreOutage } from "../store/errors.ts";

export type RecordOutcome = "created" | "extended" | "duplicate";

export interface RecordResult {
  outcome: RecordOutcome;
  snapshot: Snapshot;
  previous?: Snapshot;
  /** Extended: the snapshot as it was before (its lastSeenAt is the sighting before this one). */
  extendedFrom?: Snapshot;
}

const MAX_ATTEMPTS = 5;

/** Whether `latest` already covers `observation`: same run, a later (real) run, or a later observation. */
function alreadyCovered(latest: Snapshot, observation: Observation): boolean {
  const { runId, observedAt } = observation;
  if (latest.lastRunId === runId || latest.runId === runId) return true;
  const at = Date.parse(observedAt);
  const later = (other: string) => other > runId && !isRunAhead(other, at);
  return later(latest.lastRunId) || later(latest.runId) || latest.lastSeenAt > observedAt;
}

export async function recordObservation(
  store: SnapshotStore,
  observation: Observation,
  retentionDays: number,
  /**
   * The latest snapshot as the caller knows it (being read already, or the worker's cache): used for the first
   * attempt only; the writes are conditional on it, and a duplicate it suggests is confirmed by a fresh read.
   */
  hint: { latest?: Promise<Snapshot | undefined>; rules?: ReliabilityRules } = {},
): Promise<RecordResult> {
  const rules = hint.rules ?? defaultRules();
  const digest = digestOf(observation);
  const expiresAt = expiresAtFor(Date.parse(observation.observedAt), retentionDays);
  const observedAt = new Date(observation.observedAt);
  for (let attempt = 1; ; attempt++) {
    const hinted = attempt === 1 && hint.latest !== undefined;
    const latest = hinted ? await hint.latest : await store.latest(observation.release);
    const live = latest && !expired(latest, observedAt) ? latest : undefined;
    if (latest && alreadyCovered(latest, observation)) {
      if (hinted) continue;
      return { outcome: "duplicate", snapshot: latest };
    }
    if (live && live.digest === digest) {
      const outcome = await store.extend(live, {
        runId: observation.runId,
        observedAt: observation.observedAt,
        expiresAt,
        ...(observation.freshness ? { freshness: observation.freshness } : {}),
      });
      if (outcome === "ok") {
        const { freshness: _was, ...rest } = live;
        return {
          outcome: "extended",
          extendedFrom: live,
          snapshot: {
            ...rest,
            ...(observation.freshness ? { freshness: observation.freshness } : {}),
            lastSeenAt: observation.observedAt,
            previousSeenAt: live.lastSeenAt,
            lastRunId: observation.runId,
            seenCount: live.seenCount + 1,
            expiresAt,
          },
        };
      }
    } else {
      const { observedAt, text, ...rest } = observation;
      const next: Snapshot & { text: string } = {
        ...rest,
        id: snapshotIdOf(observation.release, observation.runId),
        firstSeenAt: observedAt,
        lastSeenAt: observedAt,
        seenCount: 1,
        lastRunId: observation.runId,
        digest,
        changes: changesBetween(live, observation),
        expiresAt,
        text,
      };
      if (live) next.previousId = live.id;
      // What later sightings need of the history before it (the open unhealthy run, undecided deploys...).
      next.rollup = foldSighting(
        {
          before: live && sightingBefore(live),
          health: next.health.overall,
          revision: next.revision,
          at: Date.parse(observedAt),
          created: true,
        },
        rules,
      ).state;
      const outcome = await store.create(next, latest);
      if (outcome === "ok") {
        const { text: _text, ownText: _ownText, ...snapshot } = next;
        return live ? { outcome: "created", snapshot, previous: live } : { outcome: "created", snapshot };
      }
    }
    if (attempt === MAX_ATTEMPTS) {
      throw new SnapshotWriteConflictError(snapshotIdOf(observation.release, observation.runId), MAX_ATTEMPTS);
    }
  }
}

/** A snapshot as the sighting after it sees it (rollup.ts); `lastSeenAt` overrides its own (a redelivery). */
export function sightingBefore(snapshot: Snapshot, lastSeenAt = snapshot.lastSeenAt): SightingBefore {
  return {
    health: snapshot.health.overall,
    revision: snapshot.revision,
    firstSeenAt: Date.parse(snapshot.firstSeenAt),
    lastSeenAt: Date.parse(lastSeenAt),
    ...(snapshot.rollup ? { state: snapshot.rollup } : {}),
  };
}

/**
 * What this run's audit of the release adds to the rollups (rollup.ts): its sighting, and the one before it. A
 * duplicate that this run wrote (a message redelivered after its writes) is the same sighting again (its
 * message's rollups were not added: they go with its DONE marker); one another run wrote adds nothing of ours.
 */
export async function sightingOf(
  result: RecordResult,
  runId: string,
  previousOf: (id: string) => Promise<Snapshot | undefined>,
): Promise<Sighting | undefined> {
  const s = result.snapshot;
  const seen = { health: s.health.overall, revision: s.revision };
  if (result.outcome === "extended" && result.extendedFrom) {
    return { ...seen, before: sightingBefore(result.extendedFrom), at: Date.parse(s.lastSeenAt), created: false };
  }
  if (result.outcome === "created") {
    const before = result.previous && sightingBefore(result.previous);
    return { ...seen, ...(before ? { before } : {}), at: Date.parse(s.firstSeenAt), created: true };
  }
  if (s.lastRunId !== runId) return undefined;
  if (s.runId === runId) {
    const previous = s.previousId ? await previousOf(s.previousId) : undefined;
    const before = previous && sightingBefore(previous);
    return { ...seen, ...(before ? { before } : {}), at: Date.parse(s.firstSeenAt), created: true };
  }
  if (!s.previousSeenAt) return undefined;
  return { ...seen, before: sightingBefore(s, s.previousSeenAt), at: Date.parse(s.lastSeenAt), created: false };
}

/** What an audit's recorded result adds to the rollups (the worker sums a message's: rollup-items.ts). */
export async function rollupFiguresOf(
  store: SnapshotStore,
  result: RecordResult,
  runId: string,
  now: Date,
  rules: ReliabilityRules,
): Promise<SightingFigures | undefined> {
  // A redelivery's own earlier write needs the snapshot before it (gone or expired: no time before it counts).
  const sighting = await sightingOf(result, runId, (id) =>
    store.get(id, now).catch((error) => {
      if (isStoreOutage(error)) throw error;
      return undefined;
    }),
  );
  return sighting && foldSighting(sighting, rules);
}
