/**
 * Where snapshots and audit runs live: one small interface, a DynamoDB and an
 * in-memory implementation, held to one contract suite (test/history/contract.ts).
 * The stores only do conditional primitives; the run-length and idempotency
 * rules that use them are in record.ts, shared by both.
 */
import type { HealthStatus } from "../health/index.ts";
import type { ReleaseKey } from "../release/model.ts";
import type { Page, PageRequest } from "../store/release-store.ts";
import type { AuditRun, FleetEntry, Snapshot, StoredFreshness } from "./model.ts";
import type { RollupDay } from "./rollup-items.ts";

export interface SnapshotQuery extends PageRequest {
  /** Snapshots seen at or after (lastSeenAt >= since). */
  since?: Date;
  /** Snapshots first seen at or before (firstSeenAt <= until). */
  until?: Date;
}

export interface FleetFilter extends PageRequest {
  health?: HealthStatus[];
  cluster?: string;
  namespace?: string;
  /** Only entries of these clusters (a registry's; at most FLEET_CLUSTERS_MAX). */
  clusters?: readonly string[];
}

/** What narrows the fleet besides health and paging. */
export type FleetScopeFilter = Pick<FleetFilter, "cluster" | "namespace" | "clusters">;

/** DynamoDB's IN takes at most 100 operands. */
export const FLEET_CLUSTERS_MAX = 100;

/** The outcome of a conditional write: `conflict` means the condition failed (someone else wrote first). */
export type WriteOutcome = "ok" | "conflict";

export interface SeenAgain {
  runId: string;
  observedAt: string;
  expiresAt: number;
  /** This sighting's freshness check (replaces the snapshot's; absent: removed). */
  freshness?: StoredFreshness;
}

export interface MessageTally {
  done: number;
  failed: number;
  unhealthy: number;
  changed: number;
}

export interface SnapshotStore {
  /** The release's latest snapshot (expired ones included, flagged by expiresAt), without its text. */
  latest(release: ReleaseKey): Promise<Snapshot | undefined>;
  /**
   * Marks `snapshot` seen again: lastSeenAt/lastRunId/expiresAt set, seenCount + 1, only if it is still
   * the latest, its digest is unchanged and `seen` is a later sighting (isLaterSighting).
   */
  extend(snapshot: Snapshot, seen: SeenAgain): Promise<WriteOutcome>;
  /**
   * Writes `next` (with its text) as the release's latest, only if no snapshot with its id exists and
   * `previous` (if given) is still the latest as read.
   */
  create(next: Snapshot & { text: string }, previous?: Snapshot): Promise<WriteOutcome>;
  /** One snapshot with its text. SnapshotNotFoundError when absent or expired; SnapshotCorruptError naming it. */
  get(id: string, now: Date): Promise<Snapshot>;
  /** A release's snapshots, newest first, without texts, expired ones hidden. */
  list(release: ReleaseKey, query: SnapshotQuery, now: Date): Promise<Page<Snapshot>>;
  /** The latest health of every audited release, worst first (no Scan: one index partition per health). */
  fleet(filter: FleetFilter, now: Date): Promise<Page<FleetEntry>>;

  /** Creates the run if absent; answers the stored run either way (a retried planner resumes it). */
  startRun(runId: string, startedAt: string): Promise<AuditRun & { sentParts: string[] }>;
  /** Notes messages as sent (idempotent per part id) and adds their releases to `planned`. */
  recordSent(runId: string, parts: { id: string; releases: number; cluster: string }[]): Promise<void>;
  /** Every message is sent. */
  finishPlanning(runId: string, plannedAt: string): Promise<void>;
  /**
   * Records one message's tally once (a redelivered message adds nothing); answers whether it was new. Only the
   * parts the planner sent (recordSent, before or after) count into the run's totals. `rollups` are added to the
   * day items (rollup-items.ts) with it, all or nothing: never twice for one message.
   */
  completeMessage(
    runId: string,
    partId: string,
    tally: MessageTally,
    at: string,
    rollups?: readonly RollupDay[],
  ): Promise<boolean>;
  /** The rollup day items of `days` (UTC, YYYY-MM-DD), of one cluster or of all; expired ones hidden. */
  rollups(days: readonly string[], cluster: string | undefined, now: Date): Promise<RollupDay[]>;
  getRun(runId: string): Promise<AuditRun>;
  listRuns(page: PageRequest): Promise<Page<AuditRun>>;

  /**
   * Claims the right to post the change notification of a snapshot: true for the first caller,
   * and again after a failed post or a claim older than `staleMs` (its poster died).
   */
  claimNotification(id: string, now: Date, staleMs?: number): Promise<boolean>;
  finishNotification(id: string, outcome: "sent" | "failed", now: Date): Promise<void>;

  /** The SLO burn state last notified for a release (shared/audit/slo-watch.ts); undefined when none (or expired). */
  sloState(release: ReleaseKey, now: Date): Promise<string | undefined>;
  /**
   * Moves a release's SLO burn state from `from` (undefined: none stored) to `to`, only if it is still `from`:
   * `ok` for the one caller that moved it (it notifies), `conflict` for the others.
   */
  swapSloState(
    release: ReleaseKey,
    from: string | undefined,
    to: string,
    at: Date,
    expiresAt: number,
  ): Promise<WriteOutcome>;
}
