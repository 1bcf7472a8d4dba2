/** What one sync run reports (API, CLI, logs, the stored last run); docs/sync.md explains each field. */

export interface SyncFailure {
  /** `Secret/<namespace>/<name>` */
  object: string;
  release?: string;
  revision?: number;
  error: string;
}

export interface SyncRemoval {
  /** `namespace/name` */
  release: string;
  revision: number;
  /** `sync`: a revision the sync had imported; `import`: one imported by hand (CLI, API, CI) the cluster does not hold. */
  origin: "sync" | "import";
  reason: string;
}

export interface SyncSummary {
  cluster: string;
  /** `*` for all namespaces, else the namespaces listed. */
  namespaces: string[] | "*";
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** Every LIST reached its end in this run (and the store was checked for releases the cluster no longer has). */
  complete: boolean;
  /** Started from where an earlier run stopped. */
  resumed: boolean;
  /** Storage objects the LISTs returned. */
  listed: number;
  /** Objects read whole (new or changed). */
  fetched: number;
  /** New revisions stored. */
  imported: number;
  /** Stored revisions whose status Helm rewrote (superseded, uninstalled, ...). */
  updated: number;
  unchanged: number;
  failed: number;
  removed: number;
  /** Requests to the cluster (LIST pages, GETs, retries included) and bytes of their answers. */
  requests: number;
  bytes: number;
  listPages: number;
  /** LISTs restarted because their continue token expired (410 Gone). */
  restarts: number;
  /** At most MAX_LISTED entries each; the counters are exact. */
  failures: SyncFailure[];
  removals: SyncRemoval[];
  /** LISTs the cluster refused (`list secrets (all namespaces): forbidden`). */
  forbidden: string[];
  notes: string[];
  /** What to do about an incomplete run. */
  hint?: string;
}

export const MAX_LISTED = 100;

export function emptySummary(cluster: string, namespaces: string[] | "*", startedAt: Date): SyncSummary {
  return {
    cluster,
    namespaces,
    startedAt: startedAt.toISOString(),
    finishedAt: startedAt.toISOString(),
    durationMs: 0,
    complete: false,
    resumed: false,
    listed: 0,
    fetched: 0,
    imported: 0,
    updated: 0,
    unchanged: 0,
    failed: 0,
    removed: 0,
    requests: 0,
    bytes: 0,
    listPages: 0,
    restarts: 0,
    failures: [],
    removals: [],
    forbidden: [],
    notes: [],
  };
}

/** Objects already counted as failed in a run: a page listed again (a restarted LIST) does not count them twice. */
const failedObjects = new WeakMap<SyncSummary, Set<string>>();

export function recordFailure(summary: SyncSummary, failure: SyncFailure): void {
  const seen = failedObjects.get(summary) ?? new Set<string>();
  failedObjects.set(summary, seen);
  if (seen.has(failure.object)) return;
  seen.add(failure.object);
  summary.failed += 1;
  if (summary.failures.length < MAX_LISTED) summary.failures.push(failure);
}

export function recordRemoval(summary: SyncSummary, removal: SyncRemoval): void {
  summary.removed += 1;
  if (summary.removals.length < MAX_LISTED) summary.removals.push(removal);
}
