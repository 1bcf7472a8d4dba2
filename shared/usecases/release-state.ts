/**
 * A release's live state, the part of `helm status` that the status (API, CLI, chatops) and the audit worker
 * share, each decision taken once:
 * - `freshestState`: the one read of the store's revision and the cluster's freshness (one LIST of its Helm
 *   storage in the same wave as the resource GETs); when the cluster holds a newer revision and the latest is
 *   wanted, it is read, decoded like an import, and the state is about it (docs/status.md "STORED");
 * - `readReleaseState`: the fan-out of one revision's manifest resources (the KubeReader) and the report.
 * Names and scope are the caller's first step (`releaseInScope`): nothing here validates them again.
 */

import { type LogAccess, type NamespaceAccess, ownNamespaceOnly } from "../clusters/namespace-access.ts";
import type { LaterRevision } from "../drift/index.ts";
import { isDomainError } from "../errors.ts";
import { ReleaseUnreachableError } from "../kube/fetch.ts";
import type { KubeReader } from "../kube/reader.ts";
import type { Logger } from "../ports.ts";
import type { Release, ReleaseKey } from "../release/model.ts";
import { buildStatusReport, type ReportInput } from "../status/build-report.ts";
import { ReleaseChartMissingError, ReleaseInfoMissingError } from "../status/errors.ts";
import type { StatusReport } from "../status/report.ts";
import { ReleaseNotFoundError } from "../store/errors.ts";
import type { ReleaseStore } from "../store/release-store.ts";
import { freshestRevision } from "../sync/freshness.ts";
import { attachLogExcerpts, secretValuesOf } from "../why/logs.ts";

export interface FreshnessRequest {
  cluster: string;
  namespace: string;
  name: string;
  /** The revision asked for; undefined: the latest (Helm's `<= 0`, already folded by `revisionOrLatest`). */
  revision?: number;
  deadline?: number;
  /** Check the store's revision against the cluster's Helm storage (default true). */
  freshness?: boolean;
}

/**
 * The state of the revision wanted, from the store's `stored` read and the cluster's own Helm storage side by
 * side (`freshestRevision`: one LIST in the same wave as the stored revision's GETs). The store answers first: a
 * revision it lacks fails before any cluster read, unless the cluster holds it (helm wrote it since the last
 * sync). Then the fan-out (`readReleaseState`) of the revision answered for. With `store`, a revision asked for by
 * number reads the revisions stored after it (`revisionsAfter`).
 */
export async function freshestState(
  deps: { kube: KubeReader; logger: Logger; store?: ReleaseStore },
  request: FreshnessRequest & LiveOptions,
  stored: Promise<Release>,
): Promise<StatusReport> {
  const live = async (release: Release) => {
    const later = request.revision === undefined ? undefined : await revisionsAfter(deps.store, request, release);
    return readReleaseState(deps, { ...request, release, laterRevisions: later });
  };
  if (request.freshness === false) return live(await stored);
  const storedOrMissing = await stored.catch((error: unknown) => {
    if (error instanceof ReleaseNotFoundError) return error;
    throw error;
  });
  const storedRelease = storedOrMissing instanceof ReleaseNotFoundError ? undefined : storedOrMissing;
  const [storedReport, fresh] = await Promise.all([
    storedRelease && live(storedRelease),
    freshestRevision(deps.kube, request, storedRelease),
  ]);
  // Neither the store nor the cluster has it: the store's own not-found.
  if (fresh.answer === "notFound" || (fresh.answer === "stored" && !storedReport)) throw storedOrMissing;
  const report = fresh.answer === "read" ? await live(fresh.release) : storedReport!;
  report.freshness = fresh.freshness;
  return report;
}

/** Newest revisions read to find those after a deployed one (Helm keeps 10 by default). */
const LATER_REVISIONS_READ = 20;

/**
 * A still deployed revision asked for by number may have later ones (a failed or pending upgrade) whose Helm
 * writes are on the live objects: read them (one history page) so drift names Helm, not "a webhook".
 */
async function revisionsAfter(
  store: ReleaseStore | undefined,
  key: ReleaseKey,
  release: Release,
): Promise<LaterRevision[] | undefined> {
  if (!store || release.info?.status !== "deployed") return;
  const page = await store.history(key, { limit: LATER_REVISIONS_READ });
  return page.items
    .filter((revision) => revision.version > release.version)
    .map((revision) => ({
      version: revision.version,
      status: revision.info?.status ?? "unknown",
      ...(revision.info?.last_deployed ? { deployedAt: revision.info.last_deployed } : {}),
    }));
}

/** How the resources are read (`LiveStateInput` but the release, which `freshestState` picks, and what follows it). */
export type LiveOptions = Omit<LiveStateInput, "release" | "laterRevisions">;

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
  /** Log excerpts of the causes' crashed containers (namespace-access.ts `releaseAccess`); absent: none said. */
  logs?: LogAccess;
}

const NON_FATAL_STATUSES = new Set(["uninstalled", "failed"]);
const nothingRead = (): ReportInput["fetched"] => ({
  resources: [],
  related: [],
  counters: { requests: 0, retries: 0, maxInFlight: 0, reauthentications: 0 },
});

/**
 * The live half of a status, for a release already loaded (from the store, or an index the caller holds):
 * "release info is missing" / "release chart is missing"; then every manifest resource in one wave. For
 * releases that are uninstalled or failed, a cluster that cannot be read is not an error: the report says what
 * could not be read.
 */
export async function readReleaseState(
  deps: { kube: KubeReader; logger: Logger },
  input: LiveStateInput,
): Promise<StatusReport> {
  const { kube } = deps;
  const now = () => kube.clock.now().getTime();
  const started = input.startedAt ?? now();
  const { release, cluster } = input;
  if (!release.info) throw new ReleaseInfoMissingError();
  if (!release.chart) throw new ReleaseChartMissingError();

  // Parsed and redacted once per stored revision while the reader lives (prepared-manifest.ts).
  const prepared = kube.prepare(
    { cluster, namespace: release.namespace, name: release.name, revision: release.version },
    release.manifest ?? "",
    (release.hooks ?? []).map((hook) => hook.manifest ?? ""),
  );
  const { objects, problems } = prepared;
  const status = release.info.status;
  const fetched =
    objects.length === 0
      ? nothingRead()
      : await kube
          .read({
            cluster,
            namespace: release.namespace,
            objects,
            deadline: input.deadline,
            concurrency: input.concurrency,
            sees: input.sees,
          })
          .catch((error: unknown) => unreadable(error, status));

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
    drift: (input.drift ?? true) && status === "deployed",
    laterRevisions: input.laterRevisions,
    sees: input.sees,
  };
  const report = buildStatusReport(reportInput);
  // After the wave, only for what is broken: the crashed containers' last lines, masked (why/logs.ts).
  if (input.logs && report.causes?.length) {
    const secretValues = secretValuesOf(objects);
    await attachLogExcerpts(kube, {
      cluster,
      causes: report.causes,
      access: input.logs,
      secretValues,
      deadline: input.deadline,
    });
  }
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

/**
 * A cluster that cannot be read, as the report's failure, for releases whose resources are expected to be gone
 * or broken; a caller mistake (unknown cluster, bad input) is never hidden, nor a failure for any other release.
 */
function unreadable(error: unknown, status: string): ReportInput["fetched"] {
  const callerError = isDomainError(error) && (error.kind === "not-found" || error.kind === "validation");
  if (callerError || !NON_FATAL_STATUSES.has(status)) throw error;
  // The report reaches remote callers: what they may read (no principal ARN from AWS's text).
  return {
    failure: (isDomainError(error) && error.publicMessage) || (error as Error).message,
    ...(error instanceof ReleaseUnreachableError ? { perResource: error.perResource } : {}),
  };
}
