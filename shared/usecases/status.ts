import { type NamespaceAccess, namespaceAccess, ownNamespaceOnly } from "../clusters/namespace-access.ts";
import { type ClusterScope, requireKnownCluster } from "../clusters/scope.ts";
import type { LaterRevision } from "../drift/index.ts";
import { isDomainError } from "../errors.ts";
import { ReleaseUnreachableError } from "../kube/fetch.ts";
import type { KubeReader } from "../kube/reader.ts";
import type { Logger } from "../ports.ts";
import type { Release } from "../release/model.ts";
import {
  validateClusterName,
  validateNamespace,
  validateReleaseContentName,
  validateRevision,
} from "../release/validation.ts";
import { buildStatusReport, type ReportInput } from "../status/build-report.ts";
import { ReleaseChartMissingError, ReleaseInfoMissingError } from "../status/errors.ts";
import type { StatusReport } from "../status/report.ts";
import { ReleaseNotFoundError } from "../store/errors.ts";
import type { ReleaseStore } from "../store/release-store.ts";
import {
  describeFreshness,
  type RevisionsAnswer,
  readClusterRevision,
  readClusterRevisions,
} from "../sync/freshness.ts";

/**
 * `helm status`, the seed's GetReleaseStatus semantics with Helm v4's texts, in
 * two steps that can be called apart:
 * - `loadStatusRelease`: validate the name; revision absent or <= 0 -> the
 *   latest revision (highest, any status); one store read;
 * - `readReleaseState`: "release info is missing" / "release chart is missing";
 *   then read every manifest resource from the cluster in one wave (the
 *   KubeReader). For releases that are uninstalled or failed, a cluster that
 *   cannot be read is not an error: the report says what could not be read.
 * `releaseStatus` composes both (the API, the CLI, chatops); an audit worker
 * that already holds the release calls `readReleaseState` alone.
 */

export interface StatusDeps {
  store: ReleaseStore;
  /** Pools, limits, discovery and manifest caches, and the clock (created once per composition root). */
  kube: KubeReader;
  logger: Logger;
  /** Who may be read (default: the reader's connector, i.e. the registry); the dashboard narrows it per person. */
  scope?: ClusterScope;
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
}

export interface LiveStateInput {
  cluster: string;
  release: Release;
  deadline?: number;
  concurrency?: number;
  /** When the status began (reader clock, epoch ms), so durationMs includes the store read. */
  startedAt?: number;
  /** Compare live objects with the manifest (default true); see docs/drift.md. */
  drift?: boolean;
  /** Revisions stored after this one (a deployed revision whose upgrade failed or is pending). */
  laterRevisions?: readonly LaterRevision[];
  /** The caller's access to objects outside the release's namespace (absent: all): the others are not read. */
  sees?: NamespaceAccess;
  /** Also the report as a caller granted only the release's namespace sees it (`ownNamespaceView`): the audits'. */
  ownNamespaceView?: boolean;
}

const NON_FATAL_STATUSES = new Set(["uninstalled", "failed"]);
/** Newest revisions read to find those after a deployed one (Helm keeps 10 by default). */
const LATER_REVISIONS_READ = 20;

export async function releaseStatus(deps: StatusDeps, request: StatusRequest): Promise<StatusReport> {
  const startedAt = deps.kube.clock.now().getTime();
  const scope = deps.scope ?? deps.kube.connector;
  const live = async (release: Release) =>
    readReleaseState(
      { kube: deps.kube, logger: deps.logger },
      {
        cluster: request.cluster,
        release,
        deadline: request.deadline,
        concurrency: request.concurrency,
        drift: request.drift,
        laterRevisions: await revisionsAfter(deps.store, request, release),
        startedAt,
        // Objects in namespaces the caller may not read are not read for it (issue #38: no borrowed reads).
        sees: namespaceAccess(scope, request.cluster, release.namespace),
      },
    );
  if (request.freshness === false) {
    return live(await loadStatusRelease({ store: deps.store, scope }, request));
  }
  return statusWithFreshness(deps, request, live);
}

/**
 * The status and its freshness check in one wave: the store read, then the resource GETs and the LIST of the
 * release's storage objects at once. When the cluster holds a newer revision than the store (or the store has
 * none yet) it is read, decoded like an import, and the status is about it; when that cannot be done in time,
 * the status stays about the stored revision and says so.
 */
async function statusWithFreshness(
  deps: StatusDeps,
  request: StatusRequest,
  live: (release: Release) => Promise<StatusReport>,
): Promise<StatusReport> {
  const wantLatest = request.revision === undefined || request.revision <= 0;
  const loading = loadStatusRelease({ store: deps.store, scope: deps.scope ?? deps.kube.connector }, request);
  // Validated by loadStatusRelease (which fails first for a bad name or cluster).
  const check = loading.then(
    () => readClusterRevisions(deps.kube, { ...request, deadline: request.deadline }),
    (error) => {
      if (!(error instanceof ReleaseNotFoundError) || !wantLatest) throw error;
      return readClusterRevisions(deps.kube, { ...request, deadline: request.deadline });
    },
  );
  // Awaited below on every path but a store failure, which must not leave it rejected unobserved.
  check.catch(() => undefined);
  let stored: Release | undefined;
  try {
    stored = await loading;
  } catch (error) {
    if (!(error instanceof ReleaseNotFoundError) || !wantLatest) throw error;
    // Not in the store: the cluster may have it already (installed since the last sync).
    const answer = await check;
    if (!("revisions" in answer) || answer.revisions.latest === 0) throw error;
    const newer = await readClusterRevision(deps.kube, request, answer.revisions);
    if (!("release" in newer)) throw error;
    const report = await live(newer.release);
    report.freshness = describeFreshness({ answered: newer.release.version, check: answer });
    return report;
  }
  return answerStoredOrNewer(deps.kube, { ...request, wantLatest }, stored, live, check);
}

/**
 * The live status of the stored revision and the freshness check (already started) side by side; when the
 * cluster holds a newer revision (and the latest is wanted) it is read and the status is about it instead.
 * Shared by the status route and the audit worker, so an audit after a helm change sees what helm did.
 */
export async function answerStoredOrNewer(
  kube: KubeReader,
  request: { cluster: string; namespace: string; deadline?: number; wantLatest: boolean },
  stored: Release,
  live: (release: Release) => Promise<StatusReport>,
  check: Promise<RevisionsAnswer>,
): Promise<StatusReport> {
  const [report, answer] = await Promise.all([live(stored), check]);
  const latest = "revisions" in answer ? answer.revisions.latest : 0;
  let newerNotRead: string | undefined;
  if (request.wantLatest && latest > stored.version && "revisions" in answer) {
    const newer = await readClusterRevision(kube, request, answer.revisions);
    if ("release" in newer) {
      const fresh = await live(newer.release);
      fresh.freshness = describeFreshness({ stored: stored.version, answered: newer.release.version, check: answer });
      return fresh;
    }
    newerNotRead = newer.failed;
  }
  report.freshness = describeFreshness({
    stored: stored.version,
    answered: stored.version,
    asked: request.wantLatest ? undefined : stored.version,
    check: answer,
    newerNotRead,
  });
  return report;
}

/**
 * A still deployed revision asked for by number may have later ones (a failed or pending upgrade) whose Helm
 * writes are on the live objects: read them (one history page) so drift names Helm, not "a webhook".
 */
async function revisionsAfter(
  store: ReleaseStore,
  request: StatusRequest,
  release: Release,
): Promise<LaterRevision[] | undefined> {
  if (release.info?.status !== "deployed" || request.revision === undefined || request.revision <= 0) return;
  const key = { cluster: request.cluster, namespace: release.namespace, name: release.name };
  const page = await store.history(key, { limit: LATER_REVISIONS_READ });
  return page.items
    .filter((revision) => revision.version > release.version)
    .map((revision) => ({
      version: revision.version,
      status: revision.info?.status ?? "unknown",
      ...(revision.info?.last_deployed ? { deployedAt: revision.info.last_deployed } : {}),
    }));
}

/** The stored revision a status is about (validated key; `revision` absent or <= 0 -> the latest). */
export async function loadStatusRelease(
  { store, scope }: { store: ReleaseStore; scope: ClusterScope },
  request: Pick<StatusRequest, "cluster" | "namespace" | "name" | "revision">,
): Promise<Release> {
  const key = parseKey(request);
  // Before the store read: a cluster outside the registry is a 404 even if the store holds data for it.
  requireKnownCluster(scope, key.cluster, key.namespace);
  // Helm: `version <= 0` means the latest; anything else must be a valid revision number.
  const revision = request.revision;
  const wantLatest = revision === undefined || (typeof revision === "number" && revision <= 0);
  return wantLatest ? store.getLatest(key) : store.getRevision(key, validateRevision(revision));
}

/** The live half of a status, for a release already loaded (from the store, or an index the caller holds). */
export async function readReleaseState(
  deps: Pick<StatusDeps, "kube" | "logger">,
  input: LiveStateInput,
): Promise<StatusReport> {
  const { kube } = deps;
  const now = () => kube.clock.now().getTime();
  const started = input.startedAt ?? now();
  const { release } = input;
  const cluster = validateClusterName(input.cluster);
  if (!release.info) throw new ReleaseInfoMissingError();
  if (!release.chart) throw new ReleaseChartMissingError();

  // Parsed and redacted once per stored revision while the reader lives (prepared-manifest.ts).
  const prepared = kube.prepare(
    { cluster, namespace: release.namespace, name: release.name, revision: release.version },
    release.manifest ?? "",
    (release.hooks ?? []).map((hook) => hook.manifest ?? ""),
  );
  const { objects, problems } = prepared;
  let fetched: ReportInput["fetched"];
  if (objects.length === 0) {
    fetched = {
      resources: [],
      related: [],
      counters: { requests: 0, retries: 0, maxInFlight: 0, reauthentications: 0 },
    };
  } else {
    try {
      fetched = await kube.read({
        cluster,
        namespace: release.namespace,
        objects,
        deadline: input.deadline,
        concurrency: input.concurrency,
        sees: input.sees,
      });
    } catch (error) {
      // A caller mistake (unknown cluster, bad input) is never hidden; a cluster that cannot be read is,
      // for releases whose resources are expected to be gone or broken.
      const callerError = isDomainError(error) && (error.kind === "not-found" || error.kind === "validation");
      if (callerError || !NON_FATAL_STATUSES.has(release.info.status)) throw error;
      // The report reaches remote callers: what they may read (no principal ARN from AWS's text).
      fetched = {
        failure: (isDomainError(error) && error.publicMessage) || (error as Error).message,
        ...(error instanceof ReleaseUnreachableError ? { perResource: error.perResource } : {}),
      };
    }
  }

  const reportInput: ReportInput = {
    release,
    cluster,
    observedAt: kube.clock.now(),
    objects,
    problems,
    redacted: { manifest: prepared.redactedManifest, hooks: prepared.redactedHooks },
    fetched,
    durationMs: now() - started,
    // Only the deployed revision is what the cluster should hold; an older (superseded) or failed one
    // would report Helm's own later changes as drift.
    drift: (input.drift ?? true) && release.info.status === "deployed",
    laterRevisions: input.laterRevisions,
    sees: input.sees,
  };
  const report = buildStatusReport(reportInput);
  if (input.ownNamespaceView && readOutside(fetched, release.namespace)) {
    report.ownNamespaceView = buildStatusReport({ ...reportInput, sees: ownNamespaceOnly(release.namespace) });
  }
  deps.logger.info("release status read", {
    cluster,
    namespace: release.namespace,
    release: release.name,
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

/** Whether the read looked anything up outside the release's namespace (a cluster-scoped object included). */
function readOutside(fetched: ReportInput["fetched"], namespace: string): boolean {
  return "resources" in fetched && fetched.resources.some((r) => r.mapping && r.namespace !== namespace);
}

function parseKey(request: Pick<StatusRequest, "cluster" | "namespace" | "name">) {
  validateReleaseContentName(request.name);
  return {
    cluster: validateClusterName(request.cluster),
    namespace: validateNamespace(request.namespace),
    name: request.name,
  };
}
