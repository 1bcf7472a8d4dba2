import type { DriftReport } from "../drift/types.ts";
import type { HealthAssessment, HealthStatus } from "../health/index.ts";
import type { TableColumn } from "../kube/table.ts";
import type { ManifestObject } from "../manifest/manifest.ts";
import type { ChartMetadata, Hook, ReleaseInfo, ReleaseStatus } from "../release/model.ts";
import type { AttributedDriftedField } from "../who/shown.ts";
import type { Cause } from "../why/causes.ts";
import type { ReleaseEvents } from "../why/events.ts";

/**
 * The status report: what the API, the CLI, the audits and chatops all get
 * from `releaseStatus`. Plain data (JSON-serialisable, no classes), Secret
 * values already redacted, the release's config values never included.
 */

/** Why a manifest resource has no row: the `==> MISSING` section's REASON. */
export type MissingReason = "not found" | "forbidden" | "unknown kind" | "error" | "not read in time";

export interface ReleaseView {
  name: string;
  namespace: string;
  /** The revision. */
  version: number;
  info: ReleaseInfo & { status: ReleaseStatus };
  chart?: ChartMetadata;
  /** The stored manifest with Secret values redacted. */
  manifest: string;
  /** Hooks with Secret values in their manifests redacted. */
  hooks: Hook[];
  apply_method?: string;
}

/** One resource of the report: its manifest object's identity, template and position, and what was read of it. */
export interface ResourceEntry
  extends Pick<ManifestObject, "apiVersion" | "kind" | "name" | "namespace" | "source" | "index"> {
  /** Helm's group key: `v<version>/<Kind>`, API group dropped (`v1/Deployment`). */
  groupKey: string;
  /** Table columns as the server defined them (all priorities; renderers show priority 0). */
  columns: TableColumn[];
  /** Server-printed cells, one array per row (one row for a single GET). */
  rows: unknown[][];
  /** The live object, Secret values redacted. */
  object?: Record<string, unknown>;
  health: HealthAssessment;
}

export interface RelatedPodsEntry {
  namespace: string;
  selector: Record<string, string>;
  columns: TableColumn[];
  rows: unknown[][];
  /** The live pods, in row order. */
  objects: Record<string, unknown>[];
  /** The LIST's metadata (resourceVersion), for Helm's PodList shape. */
  listMetadata: Record<string, unknown>;
}

export interface MissingEntry {
  apiVersion?: string;
  /** `Pod(related)` for a related-pods lookup that failed. */
  kind?: string;
  name?: string;
  namespace?: string;
  source?: string;
  reason: MissingReason;
  /** The detail: the API server's message, the HTTP status, the attempts made. */
  message?: string;
}

export interface ResourceHealth {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  status: HealthStatus;
  message: string;
}

export interface StatusCounters {
  /** HTTP requests sent to the API server, retries included. */
  requests: number;
  retries: number;
  /** Highest number of requests in flight at once. */
  maxInFlight: number;
  durationMs: number;
}

export interface StatusReport {
  release: ReleaseView;
  cluster: string;
  /** ISO 8601, when the cluster was read. */
  observedAt: string;
  /** Manifest resources that were read, in manifest order. */
  resources: ResourceEntry[];
  /** One entry per distinct workload selector (Helm's `v1/Pod(related)`). */
  relatedPods: RelatedPodsEntry[];
  /** Manifest resources (and related-pod lookups) without a row, with the reason. */
  missing: MissingEntry[];
  health: {
    ruleset: string;
    overall: HealthStatus;
    message: string;
    /** The first cause chain's root, which the verdict cites (why/causes.ts `verdictCause`); absent when none. */
    cause?: string;
    resources: ResourceHealth[];
  };
  /** True when every resource got an answer (a 404 is an answer; an error or the deadline is not). */
  complete: boolean;
  counters: StatusCounters;
  /** Fields the manifest sets that differ live, and who changed them (docs/drift.md); absent when not asked for. */
  drift?: StatusDrift;
  /**
   * `audit logs are off for <cluster>: <what to run>`: said once when drift names writers and the cluster's audit
   * logs are off, so no person can be named (docs/who.md).
   */
  auditLogging?: string;
  /** Why the resources that are not Current are so (docs/status.md "WHY"): one cause chain each; absent when none. */
  causes?: Cause[];
  /**
   * The Warning events about the release's objects, their pods and the pods' owners (docs/status.md "EVENTS"),
   * folded and bounded; absent when the release has nothing events would explain. `unread`: why they are not here.
   */
  events?: ReleaseEvents;
  /** Whether the stored revision is the cluster's latest (docs/status.md "STORED"); absent when not checked for. */
  freshness?: Freshness;
  /**
   * Objects of the release in namespaces the caller may not read (clusters/namespace-access.ts): not read (live) or
   * not shown (history), only counted; absent when there are none. docs/security.md "What each caller sees".
   */
  outsideAccess?: { resources: number };
  /**
   * The same read as a caller granted only the release's namespace sees it, when the read reached outside it: what
   * the audits record for everyone (shared/audit/observation.ts). Never rendered.
   */
  ownNamespaceView?: StatusReport;
}

/**
 * The drift a status shows: the drift report, each field with who made the write when the EKS audit log said
 * (docs/who.md), as the caller may see it.
 */
export interface StatusDrift extends DriftReport {
  fields: AttributedDriftedField[];
}

/**
 * The store's revision against the cluster's own Helm storage, read in the same wave as the resources.
 * `read-now`: the cluster had a newer revision, read and decoded in memory, and this status is about it.
 */
export interface Freshness {
  state: "matches" | "read-now" | "cluster-newer" | "not-in-cluster" | "stored-newer" | "asked" | "not-checked";
  /** The revision the store held (absent: none). */
  storedRevision?: number;
  /** The cluster's highest revision of the release (0: none); absent when not checked. */
  clusterRevision?: number;
  /** The revision this status is about. */
  revision: number;
  /** What the text's `STORED:` line says. */
  message: string;
}

/** `apps/v1` + `Deployment` -> `v1/Deployment`, Helm's key (the API group is dropped). */
export function groupKeyOf(apiVersion: string, kind: string): string {
  const version = apiVersion.includes("/") ? apiVersion.slice(apiVersion.indexOf("/") + 1) : apiVersion;
  return `${version}/${kind}`;
}

export const RELATED_PODS_KEY = "v1/Pod(related)";
