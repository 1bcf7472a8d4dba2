/**
 * Where the snapshots live: one small port, a DynamoDB and an in-memory implementation, held to one contract suite
 * (test/history/contract.ts). The history's other concerns have their own ports beside it (audit-run-store.ts,
 * rollup-store.ts, notification-claims.ts, slo-state-store.ts; the five together: history-stores.ts). The stores
 * only do conditional primitives; the run-length and idempotency rules that use them are in
 * shared/audit/record.ts, shared by both.
 */
import type { HealthStatus } from "../health/index.ts";
import type { ReleaseKey } from "../release/model.ts";
import type { Page, PageRequest } from "../store/release-store.ts";
import type { FleetEntry, Snapshot, StoredFreshness } from "./model.ts";

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
  /** Only entries of these clusters (a registry's; at most FLEET_CLUSTERS_MAX; past FLEET_IN_MAX, filtered as read). */
  clusters?: readonly string[];
}

/** What narrows the fleet besides health and paging. */
export type FleetScopeFilter = Pick<FleetFilter, "cluster" | "namespace" | "clusters">;

/** DynamoDB's IN takes at most 100 operands: a longer list of clusters is filtered as the entries are read. */
export const FLEET_IN_MAX = 100;
/** The most clusters one fleet read may name: a registry of a large fleet (docs/scale.md "Fixes"). */
export const FLEET_CLUSTERS_MAX = 10_000;

/** The outcome of a conditional write: `conflict` means the condition failed (someone else wrote first). */
export type WriteOutcome = "ok" | "conflict";

export interface SeenAgain {
  runId: string;
  observedAt: string;
  expiresAt: number;
  /** This sighting's freshness check (replaces the snapshot's; absent: removed). */
  freshness?: StoredFreshness;
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
}
