import type { Release, ReleaseKey, ReleaseMetadata, ReleaseStatus, ReleaseSummary } from "../release/model.ts";
import type { RevisionSource } from "../release/storage-identity.ts";
import type { ManifestCorruptError, ReleaseNotFoundError } from "./errors.ts";

/** One release of a getLatestOfEach: the release, or why it could not be read. */
export type LatestRead = { release: Release } | { error: ReleaseNotFoundError | ManifestCorruptError };

/** One page of a listing; `cursor` is opaque and absent on the last page. */
export interface Page<T> {
  items: T[];
  cursor?: string;
}

export interface PageRequest {
  /** Page size; implementations cap it. */
  limit?: number;
  /** A cursor from a previous page. A malformed cursor is a ValidationError. */
  cursor?: string;
}

/**
 * `updated`: the revision existed with the same content and only what Helm itself
 * rewrites in place changed (status, description, deleted time, hook last runs).
 */
export type PutResult = "created" | "unchanged" | "updated";

/** `absent`: the revision was not stored (already removed, or never written). */
export type RemoveResult = "removed" | "absent";

export interface ListFilter {
  cluster?: string;
  namespace?: string;
  status?: ReleaseStatus;
  /** Any of these statuses (helm list's --deployed --failed ... flags); with `status`, both must hold. */
  statuses?: readonly ReleaseStatus[];
}

/** Revisions of any age in a cluster (and namespace) whose status is one of `statuses`. */
export interface RevisionFilter {
  cluster: string;
  namespace?: string;
  statuses: readonly ReleaseStatus[];
}

/**
 * Where release revisions live, like Helm's storage driver: one interface, a
 * DynamoDB implementation and an in-memory one, both held to one contract suite.
 * Every method throws the errors of shared/store/errors.ts. A status change is a re-put of the
 * revision as Helm rewrote it (`updated`). Only the release sync removes a revision (`removeRevision`), when
 * the cluster's Helm storage no longer holds it (docs/sync.md).
 */
export interface ReleaseStore {
  /** One revision with its manifest. ReleaseNotFoundError when absent. */
  getRevision(key: ReleaseKey, revision: number): Promise<Release>;
  /** The highest revision of any status (Helm's `Last`). ReleaseNotFoundError when none. */
  getLatest(key: ReleaseKey): Promise<Release>;
  /**
   * `getLatest` of many releases in a few calls (the audit worker's message): in the order asked, a
   * ReleaseNotFoundError or ManifestCorruptError in place of a release absent or damaged; a store outage throws.
   */
  getLatestOfEach(keys: readonly ReleaseKey[]): Promise<LatestRead[]>;
  /** Revision metadata only (no manifests), newest first. ReleaseNotFoundError when the release has no revision. */
  history(key: ReleaseKey, page?: PageRequest): Promise<Page<ReleaseMetadata>>;
  /**
   * Stores one revision. Re-putting identical content is `unchanged`; different
   * content under an existing revision is a ReleaseConflictError (never overwritten).
   * `source`: the storage object it was decoded from (kept with the revision, not part of its content; a put
   * without one keeps the stored one; a change of source alone is written and stays `unchanged`).
   */
  putRevision(cluster: string, release: Release, source?: RevisionSource): Promise<PutResult>;
  /** Every stored revision of a release with its provenance (absent: stored before it was kept), newest first. */
  revisionSources(key: ReleaseKey): Promise<{ revision: number; source?: RevisionSource }[]>;
  /**
   * Removes one revision, as Helm's driver deletes its storage object (uninstall, history pruning); the
   * highest remaining revision becomes the latest, and a release with none left is not found. For the sync
   * only (docs/sync.md: removals).
   */
  removeRevision(key: ReleaseKey, revision: number): Promise<RemoveResult>;
  /** Like `helm list`: the latest revision of each release matching the filter. */
  listReleases(filter: ListFilter, page?: PageRequest): Promise<Page<ReleaseSummary>>;
  /**
   * The latest revision's summary of each release, in the order asked (undefined: none stored), as listings
   * give them (no manifest is read): the dashboard's page of rows, checked against the store in one call.
   */
  latestSummaries(keys: readonly ReleaseKey[]): Promise<(ReleaseSummary | undefined)[]>;
  /**
   * Every revision, not only the latest, whose status is in the filter (`helm list --superseded`):
   * in listing order (cluster, namespace, name), oldest revision first. A page ends at a release
   * boundary, so it may hold a few more than `limit` items.
   */
  listRevisions(filter: RevisionFilter, page?: PageRequest): Promise<Page<ReleaseSummary>>;
  /** Every release whose latest revision is deployed, across clusters (audits). */
  listDeployed(page?: PageRequest): Promise<Page<ReleaseSummary>>;
}
