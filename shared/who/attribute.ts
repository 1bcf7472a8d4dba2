/**
 * The attribution worker (docs/who.md): for one cluster, takes the attributions due, looks them up in the
 * cluster's audit log in batches (one `lookup` call per batch, which the lookup turns into as few queries as it
 * can), and settles each one. Bounded work per run (`maxPerRun`): a cluster with 10,000 revisions to attribute
 * after its first sync is worked off over several runs, each resuming where the queue stands.
 *
 *   found                        → found, with the audit event's evidence
 *   searched, nothing yet        → pending, next attempt after an exponential backoff, until the retry window after
 *                                  the write has passed (audit logs arrive "within a few minutes, best effort"),
 *                                  then not-found
 *   logging off                  → logging-off for everything due (no guess), and the cluster's logging said once
 *   failed, retryable            → pending with backoff (past the retry window: failed, with the reason)
 *   failed, not retryable        → failed with the reason (AccessDenied, log group missing); the run stops there
 *
 * Called from one place: the sync's runtime after each cluster's sync (functions/sync, local/sync.ts).
 */
import type { Clock, Logger } from "../ports.ts";
import { silentLogger } from "../ports.ts";
import { backoffDelay } from "../retry.ts";
import type { Attribution, AttributionStore, AuditLogLookup, LookupResult, WriteEvidence } from "./attribution.ts";

export interface AttributeOptions {
  /** How long after a write its audit event may still arrive: past it, not found. Default 30 min (WHO_RETRY_MINUTES). */
  retryWindowMs?: number;
  /** Subjects per lookup call. Default 100. */
  batchSize?: number;
  /** Subjects looked up per run and cluster: the bound on one run's work. Default 500. */
  maxPerRun?: number;
  /** The first retry's wait, doubled per attempt up to `maxBackoffMs`. Default 20 s. */
  firstBackoffMs?: number;
  /** Default 5 min. */
  maxBackoffMs?: number;
  /** Backoff jitter in [0, 1) (tests pin it); Math.random by default. */
  random?: () => number;
}

export const DEFAULT_RETRY_WINDOW_MS = 30 * 60_000;
const DEFAULTS = { batchSize: 100, maxPerRun: 500, firstBackoffMs: 20_000, maxBackoffMs: 5 * 60_000 };

export interface AttributeDeps {
  store: AttributionStore;
  lookup: AuditLogLookup;
  clock: Clock;
  logger?: Logger;
  options?: AttributeOptions;
}

export interface AttributeSummary {
  cluster: string;
  /** Subjects looked up this run (each counts one attempt). */
  looked: number;
  found: number;
  /** Looked up, not found yet: due again later. */
  retrying: number;
  notFound: number;
  failed: number;
  loggingOff: number;
  /** Lookup calls and the queries they reported. */
  lookups: number;
  queries: number;
  /** The run stopped before its due list was done (deadline, a non-retryable failure). */
  stopped?: "deadline" | "failed";
}

export async function attributeCluster(
  cluster: string,
  deps: AttributeDeps,
  signal?: AbortSignal,
): Promise<AttributeSummary> {
  const options = { ...DEFAULTS, retryWindowMs: DEFAULT_RETRY_WINDOW_MS, ...deps.options };
  const logger = deps.logger ?? silentLogger;
  const summary: AttributeSummary = {
    cluster,
    looked: 0,
    found: 0,
    retrying: 0,
    notFound: 0,
    failed: 0,
    loggingOff: 0,
    lookups: 0,
    queries: 0,
  };
  const due = await deps.store.due(cluster, deps.clock.now(), options.maxPerRun);
  const said = { logging: false };
  for (let start = 0; start < due.length; start += options.batchSize) {
    if (signal?.aborted) {
      summary.stopped = "deadline";
      break;
    }
    const batch = due.slice(start, start + options.batchSize);
    const result = await lookupBatch(deps.lookup, cluster, batch, signal);
    // Cut off by the deadline mid-lookup: nothing learnt, the batch stays due as it was.
    if (result === undefined) {
      summary.stopped = "deadline";
      break;
    }
    summary.lookups++;
    const now = deps.clock.now();
    const settle = (a: Attribution, change: Partial<Attribution>): Attribution => {
      const settled: Attribution = { ...a, attempts: a.attempts + 1, ...change };
      if (settled.state !== "pending") delete settled.nextAttemptAt;
      if (settled.state === "found" || settled.state === "pending") delete settled.reason;
      return settled;
    };
    if (result.outcome === "logging-off") {
      // Logging is the cluster's, not the batch's: everything due now was written while it was off.
      const rest = due.slice(start);
      await deps.store.settle(rest.map((a) => settle(a, { state: "logging-off", reason: result.hint })));
      summary.loggingOff += rest.length;
      summary.looked += rest.length;
      await sayLogging(deps, cluster, { enabled: false, hint: result.hint }, now, logger, said);
      break;
    }
    summary.looked += batch.length;
    if (result.outcome === "failed" && !result.retryable) {
      await deps.store.settle(batch.map((a) => settle(a, { state: "failed", reason: result.reason })));
      summary.failed += batch.length;
      logger.warn("attribution lookups failed", { cluster, reason: result.reason });
      summary.stopped = "failed";
      break;
    }
    const found = result.outcome === "searched" ? result.found : new Map<string, WriteEvidence>();
    if (result.outcome === "searched") {
      summary.queries += result.queries;
      await sayLogging(deps, cluster, { enabled: true }, now, logger, said);
    }
    const settled = batch.map((a) => {
      const evidence = found.get(a.key);
      if (evidence) {
        summary.found++;
        return settle(a, { state: "found", evidence });
      }
      const retryAt = nextAttempt(a, now, options);
      if (retryAt) {
        summary.retrying++;
        return settle(a, { state: "pending", nextAttemptAt: retryAt.toISOString() });
      }
      if (result.outcome === "failed") {
        summary.failed++;
        return settle(a, { state: "failed", reason: `still failing after the retry window: ${result.reason}` });
      }
      summary.notFound++;
      const minutes = Math.round(options.retryWindowMs / 60_000);
      return settle(a, { state: "not-found", reason: `no matching audit event within ${minutes} min of the write` });
    });
    await deps.store.settle(settled);
  }
  return summary;
}

/** The lookup's answer, or undefined when the deadline cut it off; a throw is a retryable failure (no message: it may name an ARN). */
async function lookupBatch(
  lookup: AuditLogLookup,
  cluster: string,
  batch: Attribution[],
  signal: AbortSignal | undefined,
): Promise<LookupResult | undefined> {
  try {
    const result = await lookup.lookup(
      cluster,
      batch.map((a) => a.subject),
      signal,
    );
    // A failure because the run's deadline came is not the subjects' attempt.
    return result.outcome === "failed" && signal?.aborted ? undefined : result;
  } catch (error) {
    if (signal?.aborted) return undefined;
    return { outcome: "failed", reason: `lookup error (${(error as Error)?.name ?? "unknown"})`, retryable: true };
  }
}

/**
 * When to look again: after an exponential backoff from the attempts so far, but never past the end of the retry
 * window (the last look happens at its end); undefined once the window has passed.
 */
export function nextAttempt(
  attribution: Attribution,
  now: Date,
  options: Required<Pick<AttributeOptions, "retryWindowMs" | "firstBackoffMs" | "maxBackoffMs">> & AttributeOptions,
): Date | undefined {
  const windowEnd = subjectTime(attribution) + options.retryWindowMs;
  if (now.getTime() >= windowEnd) return undefined;
  const wait = backoffDelay(attribution.attempts + 1, {
    baseMs: options.firstBackoffMs,
    capMs: options.maxBackoffMs,
    random: options.random,
  });
  return new Date(Math.min(now.getTime() + wait, windowEnd));
}

/** When the write happened, as the subject says (its creationTimestamp or managedFields time), else when enqueued. */
function subjectTime(attribution: Attribution): number {
  const { subject } = attribution;
  const at = Date.parse(subject.type === "revision" ? subject.createdAt : subject.at);
  return Number.isFinite(at) ? at : Date.parse(attribution.enqueuedAt);
}

/** Records whether the cluster's audit logs can be read, and says so only when that changes (once per cluster). */
async function sayLogging(
  deps: AttributeDeps,
  cluster: string,
  logging: { enabled: boolean; hint?: string },
  now: Date,
  logger: Logger,
  said: { logging: boolean },
): Promise<void> {
  // Once per run is enough: every batch of a run sees the same cluster.
  if (said.logging) return;
  said.logging = true;
  const known = await deps.store.clusterLogging(cluster);
  if (known?.enabled === logging.enabled && known.hint === logging.hint) return;
  await deps.store.setClusterLogging(cluster, { ...logging, checkedAt: now.toISOString() });
  if (!logging.enabled) logger.warn(`audit logs are off for ${cluster}: ${logging.hint ?? ""}`.trim(), { cluster });
  else if (known && !known.enabled) logger.info(`audit logs are on again for ${cluster}`, { cluster });
}
