import { namespaceAccess } from "../clusters/namespace-access.ts";
import { type ClusterScope, releaseInScope } from "../clusters/scope.ts";
import type { LaterRevision } from "../drift/index.ts";
import type { KubeReader } from "../kube/reader.ts";
import type { Logger } from "../ports.ts";
import type { Release, ReleaseKey } from "../release/model.ts";
import { revisionOrLatest } from "../release/validation.ts";
import type { StatusReport } from "../status/report.ts";
import type { ReleaseStore } from "../store/release-store.ts";
import type { AttributionStore, Audience } from "../who/attribution.ts";
import { readShownAttributions, type ShownAttributions, whoOfField } from "../who/shown.ts";
import { logAccessFor } from "../why/logs.ts";
import { freshestState } from "./release-state.ts";

/**
 * `helm status`, the seed's GetReleaseStatus semantics with Helm v4's texts, one decision per step:
 * validate the names (Helm's `releaseContent` wording) → the scope (`releaseInScope`: grants, registry) → the
 * revision (`revisionOrLatest`: absent or <= 0 is the latest, highest of any status) → one read of the store and
 * the cluster's freshness (`freshestState`, which the audit worker calls too) → the fan-out and the report
 * (`readReleaseState`) → who made the drifted writes (`attributeDrift`: the kept attributions, read during the wave
 * once the store has answered, never waited for beyond that one Query). Used by the API, the CLI and chatops; the history
 * (`?at=`) is `status-at.ts`.
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
  revision?: number;
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
   * grants (why/logs.ts `logAccessFor`), never by the adapter.
   */
  logExcerpts?: boolean;
  /** Who reads the report (default "public"): only the IAM-signed API's JSON is "iam" (ARN and account id). */
  audience?: Audience;
}

/** Newest revisions read to find those after a deployed one (Helm keeps 10 by default). */
const LATER_REVISIONS_READ = 20;

export async function releaseStatus(deps: StatusDeps, request: StatusRequest): Promise<StatusReport> {
  const startedAt = deps.kube.clock.now().getTime();
  // Before the store read: a cluster outside the registry is a 404 even if the store holds data for it.
  const scope = deps.scope ?? deps.kube.connector;
  const key = releaseInScope(scope, request, "content");
  const revision = revisionOrLatest(request.revision);
  const stored = revision === undefined ? deps.store.getLatest(key) : deps.store.getRevision(key, revision);
  // One Query during the cluster's wave (after the store read, so it never queues beside the read the wave waits
  // for): it has answered long before the report is ready. A release not stored reads none.
  const attributions = deps.attributions;
  const shown = attributions
    ? stored.then(
        () =>
          readShownAttributions(
            attributions,
            key,
            request.audience ?? "public",
            (error) => deps.logger.warn("attributions not read", { error: (error as Error)?.message ?? String(error) }),
            // One Query: the logging being off is told by the records the workers settled (their reason is the hint).
            { clusterLogging: false },
          ),
        () => undefined,
      )
    : undefined;
  const report = await freshestState(
    deps,
    {
      ...key,
      revision,
      deadline: request.deadline,
      freshness: request.freshness,
      concurrency: request.concurrency,
      drift: request.drift,
      startedAt,
      // Objects in namespaces the caller may not read are not read for it (issue #38: no borrowed reads).
      sees: namespaceAccess(scope, key.cluster, key.namespace),
      logs: logAccessFor(request.logExcerpts, scope, key.cluster, key.namespace),
      laterRevisions: revision === undefined ? undefined : (release) => revisionsAfter(deps.store, key, release),
    },
    stored,
  );
  const named = await shown;
  return named ? attributeDrift(report, named) : report;
}

/**
 * The drifted fields' writers, named when the audit log said (`whoOfField`), and the cluster's logging being off
 * said once when some field names a writer nobody is put to.
 */
function attributeDrift(report: StatusReport, shown: ShownAttributions): StatusReport {
  const drift = report.drift;
  if (!drift || drift.fields.length === 0) return report;
  const fields = drift.fields.map((field) => {
    const who = whoOfField(shown, field);
    return who ? { ...field, who } : field;
  });
  const unnamed = fields.some(
    (field) => field.changedBy && field.helmRevision === undefined && field.who?.state !== "found",
  );
  return {
    ...report,
    drift: { ...drift, fields },
    ...(unnamed && shown.loggingOff ? { auditLogging: shown.loggingOff } : {}),
  };
}

/**
 * A still deployed revision asked for by number may have later ones (a failed or pending upgrade) whose Helm
 * writes are on the live objects: read them (one history page) so drift names Helm, not "a webhook".
 */
async function revisionsAfter(
  store: ReleaseStore,
  key: ReleaseKey,
  release: Release,
): Promise<LaterRevision[] | undefined> {
  if (release.info?.status !== "deployed") return;
  const page = await store.history(key, { limit: LATER_REVISIONS_READ });
  return page.items
    .filter((revision) => revision.version > release.version)
    .map((revision) => ({
      version: revision.version,
      status: revision.info?.status ?? "unknown",
      ...(revision.info?.last_deployed ? { deployedAt: revision.info.last_deployed } : {}),
    }));
}
