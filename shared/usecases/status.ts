import { releaseAccess } from "../clusters/namespace-access.ts";
import { type ClusterScope, releaseInScope } from "../clusters/scope.ts";
import type { KubeReader } from "../kube/reader.ts";
import type { Logger } from "../ports.ts";
import { revisionOrLatest } from "../release/validation.ts";
import type { StatusReport } from "../status/report.ts";
import type { ReleaseStore } from "../store/release-store.ts";
import type { AttributionStore, Audience } from "../who/attribution.ts";
import { attributeDrift, readStatusAttributions } from "../who/shown.ts";
import { freshestState } from "./release-state.ts";

/**
 * `helm status`, the seed's GetReleaseStatus semantics with Helm v4's texts, one decision per step, each one call:
 * validate and scope (`releaseInScope`: Helm's `releaseContent` wording, the grants, the registry) → the revision
 * (`revisionOrLatest`: absent or <= 0 is the latest, highest of any status) → the store read, and with drift the
 * attributions' read once it has answered (`readStatusAttributions`: one Query during the wave, never waited for
 * beyond it) → the caller's access to the release (`releaseAccess`) → the store's revision against the cluster's
 * freshness and the fan-out (`freshestState`, which the audit worker calls too) → who made the drifted writes
 * (`attributeDrift`).
 * Used by the API, the CLI, chatops and the MCP tools; the history (`?at=`) is `status-at.ts`.
 */

export interface StatusDeps {
  store: ReleaseStore;
  /** Pools, limits, discovery and manifest caches, and the clock (created once per composition root). */
  kube: KubeReader;
  logger: Logger;
  /** Who may be read (default: the reader's connector, i.e. the registry); the dashboard narrows it per person. */
  scope?: ClusterScope;
  /** Who made each drift write (docs/who.md); absent: CHANGED BY names the program only. */
  attributions?: AttributionStore;
}

export interface StatusRequest {
  cluster: string;
  namespace: string;
  name: string;
  /** As given (a number, or the text of a flag or query); `revisionOrLatest` decides: absent or <= 0 the latest. */
  revision?: number | string;
  /** Absolute time (epoch ms, by the reader's clock) by which the report must be ready; see docs/status.md. */
  deadline?: number;
  /** Reads in flight for this status (default: the reader's per-status cap). */
  concurrency?: number;
  /** Compare live objects with the manifest (default true); see docs/drift.md. */
  drift?: boolean;
  /**
   * Check the store's revision against the cluster's Helm storage in the same wave (default true): the
   * `STORED:` line / `freshness` field; a newer revision in the cluster is read and answered for.
   */
  freshness?: boolean;
  /**
   * The deployment reads log excerpts (the API's LOG_EXCERPTS): who may see them is decided here from the scope's
   * grants (clusters/namespace-access.ts `releaseAccess`), never by the adapter.
   */
  logExcerpts?: boolean;
  /** Who reads the report (default "public"): only the IAM-signed API's JSON is "iam" (ARN and account id). */
  audience?: Audience;
}

export async function releaseStatus(deps: StatusDeps, request: StatusRequest): Promise<StatusReport> {
  const startedAt = deps.kube.clock.now().getTime();
  // Before the store read: a cluster outside the registry is a 404 even if the store holds data for it.
  const scope = deps.scope ?? deps.kube.connector;
  const key = releaseInScope(scope, request, "content");
  const revision = revisionOrLatest(request.revision);
  const stored = revision === undefined ? deps.store.getLatest(key) : deps.store.getRevision(key, revision);
  const { deadline, freshness, concurrency, drift, logExcerpts } = request;
  // Attributions name the writers of drifted fields: a status without drift has none to name, so no Query.
  const who = drift === false ? undefined : readStatusAttributions(deps, key, request.audience ?? "public", stored);
  // Objects in namespaces the caller may not read are not read for it (issue #38: no borrowed reads).
  const access = releaseAccess(scope, key, logExcerpts);
  const report = await freshestState(
    deps,
    { ...key, revision, deadline, freshness, concurrency, drift, startedAt, ...access },
    stored,
  );
  return attributeDrift(report, await who);
}
