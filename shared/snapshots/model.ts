/**
 * Status history: snapshots of what `releaseStatus` saw, kept run-length
 * (a snapshot covers every audit from firstSeenAt to lastSeenAt that saw the
 * same health-relevant content), the changes between them, and audit runs.
 * Layout and the reasons for it: docs/history.md.
 */

import type { DriftedField } from "../drift/types.ts";
import type { HealthStatus } from "../health/index.ts";
import { isCalendarDateTime } from "../input/calendar-time.ts";
import type { ReleaseKey } from "../release/model.ts";
import type { Freshness, MissingReason } from "../status/report.ts";
import type { Cause } from "../why/causes.ts";
import type { ReleaseEvent } from "../why/events.ts";
import { InvalidSnapshotIdError } from "./errors.ts";

/**
 * What the rollups carry on each snapshot as it is created (rollup.ts), so no audit reads more history: the open
 * non-Current run, the last change, the deploys still undecided.
 */
export interface RollupState {
  /** The non-Current run the release is in: where it began (epoch ms) and the worst health it reached. */
  run?: { start: number; worst: HealthStatus };
  /** The last change of overall health (for flaps); absent until the first one. */
  lastChangeAt?: number;
  /** Deploys whose outcome can still change: when, the next deploy's time, whether an incident failed it. */
  deploys: { at: number; next?: number; failed?: boolean }[];
}

export interface SnapshotResource {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  health: HealthStatus;
  message: string;
  /** The key cells of its table row (READY, STATUS, ...), as the server printed them. */
  cells: Record<string, string>;
}

export interface SnapshotMissing {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  reason: MissingReason;
  message?: string;
}

/**
 * A drifted field as the history keeps it (shared/drift): text values only, and for a Secret never a value
 * (`live` is `<absent>`; "changed" in snapshots from before Secret values stopped being compared). The list is bounded (DRIFT_KEPT in observation.ts); `driftTotal` says how many there were.
 */
export type SnapshotDrift = Pick<
  DriftedField,
  | "apiVersion"
  | "kind"
  | "name"
  | "namespace"
  | "field"
  | "release"
  | "live"
  | "changedBy"
  | "subresource"
  | "changedAt"
  | "conflicts"
> & {
  /** Stored as text: a snapshot written by a later version may name an owner this one does not know. */
  benign?: string;
};

/** What changed against the previous snapshot; `kind` is open so drift (and others) can add their own. */
export interface Change {
  kind: string;
  /** The resource or entry it concerns, e.g. "v1/Pod api-7d9 (shop)". */
  subject?: string;
  from?: string | number;
  to?: string | number;
}

/** What one audit of one release saw, before it is folded into the history. */
export interface Observation {
  release: ReleaseKey;
  runId: string;
  observedAt: string;
  revision: number;
  releaseStatus: string;
  health: { overall: HealthStatus; message: string };
  /** Bounded (RESOURCES_KEPT_BYTES in observation.ts, unhealthy first); `resourcesTotal` says how many there were. */
  resources: SnapshotResource[];
  /** Set when `resources` was cut to its bound: how many resources the status had. */
  resourcesTotal?: number;
  /** Bounded like `resources` (MISSING_KEPT_BYTES); `missingTotal` says how many there were. */
  missing: SnapshotMissing[];
  /** Set when `missing` was cut to its bound. */
  missingTotal?: number;
  counters: { resources: number; missing: number; requests: number; retries: number; durationMs: number };
  /** Set when the cluster could not be read (health Unknown). */
  error?: string;
  /** Fields changed behind Helm's back; absent when drift was not compared (not the deployed revision, no cluster). */
  drift?: SnapshotDrift[];
  /** Set when `drift` was cut to its bound: how many fields drifted. */
  driftTotal?: number;
  /** Why the resources not Current were so (shared/why), the first CAUSES_KEPT_IN_SNAPSHOT; kept past the event TTL. */
  causes?: Cause[];
  /**
   * The Warning events about the release then (shared/why/events.ts), the first EVENTS_KEPT_IN_SNAPSHOT. Not part of
   * the digest: a count that grows does not start a new snapshot (a changed cause does); kept as first seen.
   */
  events?: ReleaseEvent[];
  /** The full `helm status` text as it was (or the error), stored gzip and bounded. */
  text: string;
  /**
   * Set when the audit read objects outside the release's namespace: the text as a caller granted only that
   * namespace sees it (those objects counted, not shown), for readers not granted them (visible.ts).
   */
  ownText?: string;
  /** The stored revision against the cluster's Helm storage at this audit (absent: not checked, e.g. not read). */
  freshness?: StoredFreshness;
}

/**
 * How fresh the store's revision was at an audit (status/report.ts's Freshness, without its words): `matches`,
 * or the cluster held a newer one (`read-now`: audited, `cluster-newer`: not read), or none (`not-in-cluster`)...
 * Per sighting: an extend updates it (it is not part of the digest).
 */
export interface StoredFreshness {
  state: Freshness["state"];
  /** The cluster's highest revision of the release (0: none), when it was checked. */
  clusterRevision?: number;
}

export interface Snapshot extends Omit<Observation, "observedAt" | "text" | "ownText"> {
  id: string;
  firstSeenAt: string;
  lastSeenAt: string;
  seenCount: number;
  /** The last run that saw it (runId is the one that created it). */
  lastRunId: string;
  digest: string;
  changes: Change[];
  /** The id of the snapshot before it, if any. */
  previousId?: string;
  /** Epoch seconds: DynamoDB TTL. Reads hide expired snapshots (TTL deletion lags by up to days). */
  expiresAt: number;
  /** Present when read one by one (show/diff): the status text. */
  text?: string;
  /** Present when read one by one, for a snapshot that has one: Observation.ownText. */
  ownText?: string;
  /** The stored text was cut to fit the item budget. */
  textTruncated?: boolean;
  /** The sighting before the last one (set by each extend): a redelivered audit's rollup needs it (rollup.ts). */
  previousSeenAt?: string;
  /** What the per-day rollups need of the history before it (rollup.ts), set when it is created. */
  rollup?: RollupState;
}

/** The latest health of one release: what the fleet view lists. */
export interface FleetEntry {
  release: ReleaseKey;
  health: { overall: HealthStatus; message: string };
  revision: number;
  snapshotId: string;
  since: string;
  lastSeenAt: string;
  /**
   * Fields drifted at that audit (0 when none or not compared), carried by the index so a page of the fleet needs
   * no snapshot read; absent on an entry written before it was (its snapshot has the figure: driftCountOf).
   */
  driftCount?: number;
  /** The stored revision's freshness at the last audit (absent: not checked, or an entry from before it was kept). */
  freshness?: StoredFreshness;
}

/** How many fields a snapshot saw drifted (its kept list is bounded; driftTotal is the real count). */
export function driftCountOf(snapshot: Pick<Snapshot, "drift" | "driftTotal">): number {
  return snapshot.driftTotal ?? snapshot.drift?.length ?? 0;
}

export interface AuditRun {
  runId: string;
  startedAt: string;
  /** Set once every message was sent. */
  plannedAt?: string;
  planned: number;
  clusters: string[];
  /** Messages sent (the planner resumes after a crash from here). */
  messages: number;
  done: number;
  failed: number;
  unhealthy: number;
  changed: number;
  /** When the last message was completed. */
  lastDoneAt?: string;
  durationMs?: number;
}

/** Worst first, for the fleet view and summaries. */
export const HEALTH_SEVERITY: Record<HealthStatus, number> = {
  Failed: 0,
  Unknown: 1,
  NotFound: 2,
  Terminating: 3,
  InProgress: 4,
  Current: 5,
};

/** Run ids sort by time: the schedule slot (UTC, to the second), e.g. 20261202T211000Z; ad-hoc runs add a suffix. */
const RUN_ID = /^\d{8}T\d{6}Z(-[a-z0-9]{1,20})?$/;

export function isRunId(value: unknown): value is string {
  if (typeof value !== "string" || !RUN_ID.test(value)) return false;
  // A slot the calendar has (20260230T000000Z would stand for March 2).
  const [year, month, day, hour, minute, second] = [0, 4, 6, 9, 11, 13].map((at, i) =>
    Number(value.slice(at, at + (i === 0 ? 4 : 2))),
  );
  return isCalendarDateTime(year, month, day, hour, minute, second);
}

export function runIdFor(date: Date, suffix?: string): string {
  const compact = date
    .toISOString()
    .replace(/\.\d{3}Z$/, "Z")
    .replace(/[-:]/g, "");
  return suffix ? `${compact}-${suffix}` : compact;
}

/**
 * How far a run's time may be ahead of the clock reading it (issue #25 item 2): run ids order a release's
 * snapshots, so one from the future would make every real run look older. A scheduled event is on time to within
 * seconds (a retried one is late, never early); an old run time is harmless: histories are ordered by the
 * workers' observation times (record.ts).
 */
export const RUN_CLOCK_SKEW_MS = 5 * 60_000;

/** True when `runId` stands for a time later than `now` allows (beyond RUN_CLOCK_SKEW_MS). */
export function isRunAhead(runId: string, now: number): boolean {
  return runIdTime(runId).getTime() > now + RUN_CLOCK_SKEW_MS;
}

/** The planner's run time: the event's `time` unless it is ahead of `now` by more than the skew (or unreadable). */
export function runTimeNear(time: Date | undefined, now: Date): { at: Date; clamped: boolean } {
  if (!time) return { at: now, clamped: false };
  const t = time.getTime();
  if (Number.isNaN(t)) return { at: now, clamped: true };
  const clamped = t > now.getTime() + RUN_CLOCK_SKEW_MS;
  return { at: clamped ? now : time, clamped };
}

/** The time a run id stands for. */
export function runIdTime(runId: string): Date {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z/.exec(runId)!;
  return new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`);
}

/**
 * `<cluster>.<namespace>.<name>@<runId>`: unique (one snapshot per run and release at most),
 * self-describing (cluster and namespace never contain '.', a release name may), URL-safe.
 */
export function snapshotIdOf(release: ReleaseKey, runId: string): string {
  return `${release.cluster}.${release.namespace}.${release.name}@${runId}`;
}

const SNAPSHOT_ID =
  /^([A-Za-z0-9][A-Za-z0-9_-]{0,99})\.([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)\.([a-z0-9][-a-z0-9.]{0,52})@(.+)$/;

export function parseSnapshotId(id: unknown): { release: ReleaseKey; runId: string } {
  const match = typeof id === "string" && id.length <= 300 ? SNAPSHOT_ID.exec(id) : null;
  if (!match || !isRunId(match[5])) throw new InvalidSnapshotIdError(id);
  return { release: { cluster: match[1], namespace: match[2], name: match[4] }, runId: match[5] };
}

export function releaseLabel(release: ReleaseKey): string {
  return `${release.cluster}/${release.namespace}/${release.name}`;
}
