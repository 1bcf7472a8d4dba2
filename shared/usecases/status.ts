import type { ClusterConnector } from "../clusters/connector.ts";
import { requireKnownCluster } from "../clusters/scope.ts";
import { isDomainError } from "../errors.ts";
import { type FetchResult, fetchReleaseResources } from "../kube/fetch.ts";
import type { Clock, Logger } from "../ports.ts";
import type { Release } from "../release/model.ts";
import {
  validateClusterName,
  validateNamespace,
  validateReleaseName,
  validateRevision,
} from "../release/validation.ts";
import { buildStatusReport } from "../status/build-report.ts";
import { InvalidStatusReleaseNameError, ReleaseChartMissingError, ReleaseInfoMissingError } from "../status/errors.ts";
import { prepareManifest } from "../status/prepared-manifest.ts";
import type { StatusReport } from "../status/report.ts";
import type { ReleaseStore } from "../store/release-store.ts";

/**
 * `helm status`, the seed's GetReleaseStatus semantics with Helm v4's texts:
 * validate the name; revision absent or <= 0 -> the latest revision (highest,
 * any status); "release info is missing" / "release chart is missing"; then
 * read every manifest resource from the cluster in parallel. For releases that
 * are uninstalled or failed, a cluster that cannot be read is not an error: the
 * report says what could not be read. The API, the CLI, the audits and chatops
 * all call this one function.
 */

export interface StatusOptions {
  /** Requests in flight at once (default 16). */
  concurrency?: number;
  /** Per request (default 10 s). */
  requestTimeoutMs?: number;
  /** Per request, retries included (default 4). */
  maxAttempts?: number;
  /** How long discovery is trusted per cluster (default 10 min). */
  discoveryTtlMs?: number;
  /** Wall clock for the deadline (default Date.now). */
  wallClock?: () => number;
  /** Backoff jitter source (default Math.random). */
  random?: () => number;
}

export interface StatusDeps {
  store: ReleaseStore;
  clusters: ClusterConnector;
  clock: Clock;
  logger: Logger;
  options?: StatusOptions;
}

export interface StatusRequest {
  cluster: string;
  namespace: string;
  name: string;
  revision?: number;
  /** Absolute time (epoch ms) by which the report must be ready; see docs/status.md. */
  deadline?: number;
  concurrency?: number;
  /** Compare live objects with the manifest (default true); see docs/drift.md. */
  drift?: boolean;
}

const NON_FATAL_STATUSES = new Set(["uninstalled", "failed"]);

export async function releaseStatus(deps: StatusDeps, request: StatusRequest): Promise<StatusReport> {
  const wallClock = deps.options?.wallClock ?? Date.now;
  const started = wallClock();
  const key = parseKey(request);
  // Before the store read: a cluster outside the registry is a 404 even if the store holds data for it.
  requireKnownCluster(deps.clusters, key.cluster);
  const release = await loadRelease(deps.store, key, request.revision);

  // Parsed and redacted once per stored revision in a warm process (prepared-manifest.ts).
  const prepared = prepareManifest(
    { cluster: key.cluster, namespace: key.namespace, name: key.name, revision: release.version },
    release.manifest ?? "",
    (release.hooks ?? []).map((hook) => hook.manifest ?? ""),
  );
  const { objects, problems } = prepared;
  let fetched: FetchResult | { failure: string };
  if (objects.length === 0) {
    fetched = {
      resources: [],
      related: [],
      counters: { requests: 0, retries: 0, maxInFlight: 0, reauthentications: 0 },
    };
  } else {
    try {
      fetched = await fetchReleaseResources({
        cluster: key.cluster,
        connector: deps.clusters,
        namespace: release.namespace || key.namespace,
        objects,
        deadline: request.deadline,
        concurrency: request.concurrency ?? deps.options?.concurrency,
        requestTimeoutMs: deps.options?.requestTimeoutMs,
        maxAttempts: deps.options?.maxAttempts,
        discoveryTtlMs: deps.options?.discoveryTtlMs,
        now: () => deps.clock.now(),
        wallClock,
        random: deps.options?.random,
      });
    } catch (error) {
      // A caller mistake (unknown cluster, bad input) is never hidden; a cluster that cannot be read is,
      // for releases whose resources are expected to be gone or broken.
      const callerError = isDomainError(error) && (error.kind === "not-found" || error.kind === "validation");
      if (callerError || !NON_FATAL_STATUSES.has(release.info!.status)) throw error;
      // The report reaches remote callers: what they may read (no principal ARN from AWS's text).
      fetched = { failure: (isDomainError(error) && error.publicMessage) || (error as Error).message };
    }
  }

  const report = buildStatusReport({
    release,
    cluster: key.cluster,
    observedAt: deps.clock.now(),
    objects,
    problems,
    redacted: { manifest: prepared.redactedManifest, hooks: prepared.redactedHooks },
    fetched,
    durationMs: wallClock() - started,
    // Only the deployed revision is what the cluster should hold; an older (superseded) or failed one
    // would report Helm's own later changes as drift.
    drift: (request.drift ?? true) && release.info!.status === "deployed",
  });
  deps.logger.info("release status read", {
    cluster: key.cluster,
    namespace: key.namespace,
    release: key.name,
    revision: release.version,
    resources: objects.length,
    missing: report.missing.length,
    complete: report.complete,
    health: report.health.overall,
    driftedFields: report.drift?.fields.length,
    requests: report.counters.requests,
    retries: report.counters.retries,
    maxInFlight: report.counters.maxInFlight,
    durationMs: report.counters.durationMs,
  });
  return report;
}

function parseKey(request: StatusRequest) {
  try {
    validateReleaseName(request.name);
  } catch (error) {
    throw new InvalidStatusReleaseNameError(request.name, { cause: error });
  }
  return {
    cluster: validateClusterName(request.cluster),
    namespace: validateNamespace(request.namespace),
    name: request.name,
  };
}

async function loadRelease(
  store: ReleaseStore,
  key: { cluster: string; namespace: string; name: string },
  revision: number | undefined,
): Promise<Release> {
  // Helm: `version <= 0` means the latest; anything else must be a valid revision number.
  const wantLatest = revision === undefined || (typeof revision === "number" && revision <= 0);
  const release = wantLatest ? await store.getLatest(key) : await store.getRevision(key, validateRevision(revision));
  if (!release.info) throw new ReleaseInfoMissingError();
  if (!release.chart) throw new ReleaseChartMissingError();
  return release;
}
