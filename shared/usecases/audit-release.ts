/**
 * The audit worker's core: load the latest revision of every release of one message
 * in one store call, read each from its cluster (`freshestState`: the live half of `releaseStatus` with its
 * freshness check, bounded per cluster by the shared ClusterLimiter), fold the result
 * into the history, and publish the changes. A cluster that cannot be read makes an
 * Unknown snapshot saying why; a release deleted since planning is skipped;
 * only a store outage (releases or snapshots) fails the message, so SQS
 * redelivers it and the per-(run, release) idempotency makes that safe.
 */

import { type AuditMessage, InvalidAuditMessageError } from "../audit/audit-message.ts";
import { publishChange } from "../audit/change-events.ts";
import type { ClusterLimiter } from "../audit/cluster-limiter.ts";
import type { LatestSnapshotCache } from "../audit/latest-cache.ts";
import { observationFromError, observationFromReport } from "../audit/observation.ts";
import { type RecordResult, recordObservation, rollupFiguresOf } from "../audit/record.ts";
import { type SloWatchDeps, watchSlo } from "../audit/slo-watch.ts";
import type { ClusterConnector } from "../clusters/connector.ts";
import { inScope } from "../clusters/scope.ts";
import { isDomainError } from "../errors.ts";
import type { KubeReader } from "../kube/reader.ts";
import type { Clock, Logger } from "../ports.ts";
import type { Release } from "../release/model.ts";
import type { AuditRunStore, MessageTally } from "../snapshots/audit-run-store.ts";
import type { Observation } from "../snapshots/model.ts";
import { isRunAhead, RUN_CLOCK_SKEW_MS } from "../snapshots/model.ts";
import { DEFAULT_AUDIT_INTERVAL_SECONDS, defaultRules, type ReliabilityRules } from "../snapshots/reliability.ts";
import type { SightingFigures } from "../snapshots/rollup.ts";
import { rollupAdds } from "../snapshots/rollup-items.ts";
import { isStoreOutage, ReleaseNotFoundError } from "../store/errors.ts";
import type { LatestRead, ReleaseStore } from "../store/release-store.ts";
import type { AttributionStore } from "../who/attribution.ts";
import { auditedDriftWrites, enqueueForAttribution } from "../who/subjects.ts";
import { freshestState } from "./release-state.ts";

export interface AuditDeps extends SloWatchDeps {
  /** The run this message belongs to: its tally (and its rollups) recorded once. */
  auditRuns: AuditRunStore;
  store: ReleaseStore;
  clusters: ClusterConnector;
  clock: Clock;
  logger: Logger;
  limiter: ClusterLimiter;
  retentionDays: number;
  /** The latest snapshot per release this worker saw (skips the read before a stable release's extend). */
  latestCache?: LatestSnapshotCache;
  /** The worker's one KubeReader: pools, per-cluster in-flight limit (shared by all its statuses), caches. */
  kube: KubeReader;
  /** The audits' period (AUDIT_SCHEDULE), for the SLO burn's gap threshold; default 5 minutes. */
  auditIntervalSeconds?: number;
  /** Where the drift writes a report shows are enqueued for attribution (docs/who.md); absent: not attributed. */
  attributions?: AttributionStore;
}

export interface ReleaseOutcome {
  cluster: string;
  name: string;
  namespace: string;
  /** `unrecorded`: read, but its snapshot could not be stored (logged); the message's other releases still are. */
  outcome: RecordResult["outcome"] | "gone" | "unrecorded";
  /** A new snapshot with a previous one (a first snapshot is not a change). */
  changed?: boolean;
  health?: string;
  snapshotId?: string;
}

export interface MessageOutcome {
  tally: MessageTally;
  releases: ReleaseOutcome[];
}

/** Moved to shared/store/errors.ts (the rollups' redelivery path needs it too); still exported from here. */
export { isStoreOutage } from "../store/errors.ts";

export async function auditMessage(
  deps: AuditDeps,
  message: AuditMessage,
  options: { deadline?: number } = {},
): Promise<MessageOutcome> {
  refuseUnplannable(deps, message);
  const loaded = await loadMessageReleases(deps, message);
  const rules = defaultRules((deps.auditIntervalSeconds ?? DEFAULT_AUDIT_INTERVAL_SECONDS) * 1000);
  const results = await Promise.allSettled(
    message.releases.map((target, i) =>
      deps.limiter.run(message.cluster, () => auditOne(deps, message, target, loaded[i], rules, options)),
    ),
  );
  const failure = results.find((r) => r.status === "rejected");
  if (failure) throw (failure as PromiseRejectedResult).reason;
  const audited = results.map((r) => (r as PromiseFulfilledResult<Audited>).value);
  const releases = audited.map((a) => a.outcome);
  const tally: MessageTally = {
    done: releases.length,
    failed: releases.filter((r) => r.health === "Unknown").length,
    unhealthy: releases.filter((r) => r.health !== undefined && r.health !== "Current").length,
    changed: releases.filter((r) => r.changed).length,
  };
  // The message's additions to the per-day rollups, written with its DONE marker (once per message).
  const sightings = audited.flatMap((a) => (a.figures ? [{ release: a.release, figures: a.figures }] : []));
  const rollups = rollupAdds(message.cluster, sightings);
  await deps.auditRuns.completeMessage(message.runId, message.part, tally, deps.clock.now().toISOString(), rollups);
  return { tally, releases };
}

/**
 * Refused before any read or write (poison: SQS sends it to the DLQ, the worker logs why): a cluster outside the
 * registry (no planner sends one; before, each release got an Unknown snapshot item), a run id ahead of this
 * worker's clock (no planner makes one; recorded, it would look later than every real run: issue #25 item 2).
 */
function refuseUnplannable(deps: AuditDeps, message: AuditMessage): void {
  if (!inScope(deps.kube.connector, message.cluster)) {
    throw new InvalidAuditMessageError("its cluster is not in the registry");
  }
  if (isRunAhead(message.runId, deps.clock.now().getTime())) {
    throw new InvalidAuditMessageError(
      `runId is more than ${RUN_CLOCK_SKEW_MS / 60_000} minutes ahead of this worker's clock`,
    );
  }
}

/**
 * The latest revision of every release of the message in one store call (releaseStatus would make one per
 * release). A store outage throws (the message fails and is redelivered).
 */
async function loadMessageReleases(
  deps: AuditDeps,
  message: AuditMessage,
): Promise<(LatestRead | { error: unknown })[]> {
  return deps.store.getLatestOfEach(message.releases.map((t) => ({ cluster: message.cluster, ...pick(t) })));
}

const pick = ({ namespace, name }: AuditMessage["releases"][number]) => ({ namespace, name });

/** One release's outcome, and what its sighting adds to the rollups (none: gone, or another run's write). */
interface Audited {
  outcome: ReleaseOutcome;
  release: { cluster: string; namespace: string; name: string };
  figures?: SightingFigures;
}

async function auditOne(
  deps: AuditDeps,
  message: AuditMessage,
  target: AuditMessage["releases"][number],
  loaded: LatestRead | { error: unknown },
  rules: ReliabilityRules,
  options: { deadline?: number },
): Promise<Audited> {
  const key = { cluster: message.cluster, namespace: target.namespace, name: target.name };
  if ("error" in loaded && loaded.error instanceof ReleaseNotFoundError) {
    return { outcome: { ...key, outcome: "gone" }, release: key };
  }
  // The worker's cached latest snapshot, or else read it while the cluster is: the writes are conditional on
  // it, so a cached or early read is as safe as one just before (record.ts re-reads when a condition fails).
  const cached = deps.latestCache?.get(key);
  const latest = cached ? Promise.resolve(cached) : deps.snapshots.latest(key);
  latest.catch(() => {});
  let observation: Observation;
  try {
    if ("error" in loaded) throw loaded.error;
    const report = await auditedState(deps, message.cluster, loaded.release, options.deadline);
    await enqueueForAttribution(deps, auditedDriftWrites(key, report), deps.clock.now());
    observation = observationFromReport(report, message.runId, report.observedAt);
  } catch (error) {
    if (isStoreOutage(error)) throw error;
    if (!isDomainError(error))
      deps.logger.error("audit of a release failed unexpectedly", { ...key, error: String(error) });
    observation = observationFromError(
      { ...key, revision: target.revision, status: "deployed" },
      message.runId,
      deps.clock.now().toISOString(),
      error,
    );
  }
  const result = await recordOrFail(deps, observation, { latest, rules });
  if (!result) return { outcome: { ...key, outcome: "unrecorded", health: "Unknown" }, release: key };
  deps.latestCache?.set(result.snapshot);
  const createdHere = result.snapshot.runId === message.runId && result.snapshot.previousId !== undefined;
  if (result.outcome === "created" && result.previous) {
    await publishChange(deps, result.snapshot, result.previous);
  } else if (result.outcome === "duplicate" && createdHere && deps.slack) {
    // A redelivery after a crash between the write and the post: the claim in the store stops a second post.
    const previous = await deps.snapshots.get(result.snapshot.previousId!, deps.clock.now()).catch(() => undefined);
    await publishChange({ ...deps, logger: quiet(deps.logger), metrics: { count() {} } }, result.snapshot, previous);
  }
  // A release with a helm-status/slo objective: its burn state, notified once per change (never fails the audit).
  if (!("error" in loaded)) await watchSlo(deps, key, loaded.release.manifest);
  const figures = await rollupFiguresOf(deps.snapshots, result, message.runId, deps.clock.now(), rules);
  return {
    outcome: {
      ...key,
      outcome: result.outcome,
      changed: result.outcome === "created" && result.previous !== undefined,
      health: result.snapshot.health.overall,
      snapshotId: result.snapshot.id,
    },
    release: key,
    ...(figures ? { figures } : {}),
  };
}

/**
 * The observation into the history. A store outage fails the message (SQS redelivers it); anything else is about
 * this release's snapshot (e.g. an item DynamoDB refuses): logged, and the message's other releases are recorded
 * instead of the whole message going to the DLQ with them (issue #39 item 9).
 */
async function recordOrFail(
  deps: AuditDeps,
  observation: Observation,
  hint: Parameters<typeof recordObservation>[3],
): Promise<RecordResult | undefined> {
  try {
    return await recordObservation(deps.snapshots, observation, deps.retentionDays, hint);
  } catch (error) {
    if (isStoreOutage(error)) throw error;
    deps.logger.error("the audit's snapshot of a release could not be stored", {
      ...observation.release,
      resources: observation.counters.resources,
      error: String(error),
    });
    return undefined;
  }
}

/**
 * The release's live state, checked for freshness like a status (one LIST of its Helm storage in the same wave
 * as the GETs): a revision helm wrote since the last sync is read and audited instead of the stored one, so the
 * snapshot after a helm change is the cluster's truth without waiting for the sync (docs/sync.md). Exported for
 * the sync bench, which weighs it against `readReleaseState` alone (the audit's read before the check).
 */
export function auditedState(
  deps: Pick<AuditDeps, "kube" | "logger">,
  cluster: string,
  stored: Release,
  deadline: number | undefined,
) {
  // The audits read everything; what the history shows everyone is the release's own namespace (observation.ts).
  return freshestState(
    deps,
    { cluster, namespace: stored.namespace, name: stored.name, deadline, ownNamespaceView: true },
    Promise.resolve(stored),
  );
}

/** The redelivered change was logged and counted the first time. */
function quiet(logger: Logger): Logger {
  return { ...logger, info() {} };
}
