/**
 * What the release sync (shared/usecases/sync.ts, docs/sync.md) remembers per
 * cluster between runs: one record per Helm storage object it has seen (so the
 * next run GETs only what changed), where an unfinished LIST stopped (so the
 * next run resumes), the last run's summary, and a lease (so two syncs of one
 * cluster never run at once). One interface, a DynamoDB and an in-memory
 * implementation, one contract suite (test/store/sync-state-contract.ts).
 */

/** One Helm storage object as the sync last saw it. */
export interface SyncedObject {
  /** `Secret/<namespace>/<name>` or `ConfigMap/<namespace>/<name>`: the object's identity. */
  object: string;
  uid: string;
  resourceVersion: string;
  namespace: string;
  release: string;
  revision: number;
  /** The `status` label when last read. */
  status: string;
  /** Why the object could not be imported (it is not fetched again until it changes). */
  error?: string;
  /**
   * Read under Helm's identity rule (docs/security.md). A record without it was written before the rule and
   * may stand for a payload filed under another release: its object is read again once.
   */
  checked?: true;
}

/** Where an unfinished LIST stopped: the chain (driver + namespace) and its continue token. */
export interface SyncCursor {
  /** Index into the run's chains (drivers × namespaces), which are in a fixed order for a given scope. */
  chain: number;
  /** The scope the chains were built for ("*" or sorted namespaces): another scope starts over. */
  scope: string;
  /** kube-apiserver's continue token for the next page of this chain. */
  continueToken?: string;
  /** The last object key (`namespace/name`) the chain has covered: removals are decided up to it. */
  after: string;
}

export interface SyncRunRecord<Summary = unknown> {
  startedAt: string;
  finishedAt: string;
  complete: boolean;
  summary: Summary;
}

export interface SyncState<Summary = unknown> {
  cursor?: SyncCursor;
  lastRun?: SyncRunRecord<Summary>;
  /** When the last run that covered every chain finished (the "as of" of the cluster's storage). */
  lastCompleteAt?: string;
  /**
   * The scope ("*" or sorted namespaces) whose stored revisions a complete run has checked one by one against
   * the cluster's storage objects (the repair of a store written before Helm's identity rule, docs/sync.md).
   */
  revisionsChecked?: string;
}

export interface SyncLease {
  owner: string;
  /** Epoch ms. */
  expiresAt: number;
}

export interface SyncStateStore {
  /** Every object record of a cluster. */
  objects(cluster: string): Promise<SyncedObject[]>;
  /** Upserts and deletes (by `object`) records, in batches. */
  writeObjects(cluster: string, put: readonly SyncedObject[], remove: readonly string[]): Promise<void>;
  state<Summary>(cluster: string): Promise<SyncState<Summary>>;
  /** Replaces the cluster's cursor/last run; `cursor: undefined` clears it. */
  saveState<Summary>(cluster: string, state: SyncState<Summary>): Promise<void>;
  /**
   * Takes or renews the cluster's lease until `expiresAt`; false when another owner holds an unexpired one.
   * A holder killed mid-run blocks others only until its lease expires.
   */
  acquireLease(
    cluster: string,
    owner: string,
    expiresAt: number,
    now: number,
  ): Promise<{ acquired: boolean; holder?: SyncLease }>;
  releaseLease(cluster: string, owner: string): Promise<void>;
}
