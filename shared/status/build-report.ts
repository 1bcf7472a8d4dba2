import type { NamespaceAccess } from "../clusters/namespace-access.ts";
import { type DriftObject, detectDrift, type LaterRevision } from "../drift/detect.ts";
import { assessHealthWithPods, HEALTH_RULESET, type HealthAssessment, summarizeHealth } from "../health/index.ts";
import type { FetchResult, ReadOutcome } from "../kube/fetch.ts";
import { equalitySelector, labelsMatch } from "../kube/related-pods.ts";
import type { ManifestObject, ManifestProblem } from "../manifest/manifest.ts";
import { redactManifest } from "../manifest/redact.ts";
import type { Release } from "../release/model.ts";
import { explain, verdictCause } from "../why/causes.ts";
import {
  groupKeyOf,
  type MissingEntry,
  type MissingReason,
  type ReleaseView,
  type ResourceEntry,
  type ResourceHealth,
  type StatusReport,
} from "./report.ts";

/**
 * Assembles the report from the stored release and what the cluster said.
 * Pure: the use case does the I/O, this turns it into the one shape every
 * caller reads.
 */

export interface ReportInput {
  release: Release;
  cluster: string;
  observedAt: Date;
  objects: readonly ManifestObject[];
  problems: readonly ManifestProblem[];
  /** The manifest and hook manifests already redacted (cached per revision); redacted here when absent. */
  redacted?: { manifest: string; hooks: readonly string[] };
  /** What the fan-out read, or why the cluster could not be read at all (non-fatal statuses only). */
  fetched: FetchResult | { failure: string; perResource?: readonly string[] };
  durationMs: number;
  /** Compare the live objects with the manifest (the use case asks unless `--no-drift` / `?drift=false`). */
  drift?: boolean;
  /** Revisions stored after this (deployed) one: their Helm writes are attributed to them (drift). */
  laterRevisions?: readonly LaterRevision[];
  /**
   * Who the report is for (absent: a caller who sees every object): what was read in a namespace outside it is left
   * out and only counted (`outsideAccess`), as what the read skipped for that reason (outcome `outside-access`).
   */
  sees?: NamespaceAccess;
}

const REASONS: Record<Exclude<ReadOutcome, "found">, MissingReason> = {
  "not-found": "not found",
  forbidden: "forbidden",
  "unknown-kind": "unknown kind",
  error: "error",
  "not-read-in-time": "not read in time",
  // Never a MISSING entry (counted in outsideAccess); a related-pods LIST never has it.
  "outside-access": "forbidden",
};

export function buildStatusReport(input: ReportInput): StatusReport {
  const resources: ResourceEntry[] = [];
  const missing: MissingEntry[] = [];
  const health: ResourceHealth[] = [];
  const driftObjects: DriftObject[] = [];
  const now = input.observedAt;
  // `helm uninstall --keep-history`: the resources are meant to be gone. What is gone is neither
  // missing nor failing (helm prints no RESOURCES); only what is still live is listed.
  const uninstalled = input.release.info?.status === "uninstalled";
  let gone = 0;
  let outside = 0;

  for (const problem of input.problems) {
    // The problem's own fields only (not the reader's internal flags), absent ones left out.
    const { overLimit: _internal, ...entry } = problem;
    missing.push({ ...entry, reason: "error", message: problem.message });
  }

  if ("failure" in input.fetched) {
    const { failure, perResource } = input.fetched;
    input.objects.forEach((object, i) => {
      const message = perResource?.[i] ?? failure;
      missing.push({ ...identity(object), reason: "error", message });
      health.push({ ...identity(object), status: "Unknown", message });
    });
  } else {
    const relatedPodObjects = input.fetched.related.flatMap((related) =>
      related.table ? related.table.rows.flatMap((row) => (row.object ? [row.object] : [])) : [],
    );
    for (const fetched of input.fetched.resources) {
      const { object, namespace } = fetched;
      // Only what was looked up has a place (`mapping`): an unknown kind or an object not reached in time is no read.
      const read = fetched.mapping !== undefined;
      if (fetched.outcome === "outside-access" || (input.sees && read && !input.sees(namespace))) {
        outside++;
        continue;
      }
      const id = { ...identity(object), namespace: namespace ?? object.namespace };
      if (fetched.outcome === "found" && fetched.table) {
        const rows = fetched.table.rows;
        const live = rows[0]?.object;
        const verdict: HealthAssessment = live
          ? assessHealthWithPods(live, podsSelectedBy(live, relatedPodObjects), { now })
          : { status: "Unknown", message: "the server returned no object" };
        resources.push({
          groupKey: groupKeyOf(object.apiVersion, object.kind),
          ...id,
          source: object.source,
          index: object.index,
          columns: fetched.table.columns,
          rows: rows.map((row) => row.cells),
          object: live,
          health: verdict,
        });
        health.push({ ...id, ...verdict });
        if (live) {
          driftObjects.push({ ...id, manifest: object.object, live });
        }
        continue;
      }
      if (uninstalled && fetched.outcome === "not-found") {
        gone++;
        continue;
      }
      const reason = fetched.outcome === "found" ? "error" : REASONS[fetched.outcome];
      missing.push({ ...id, source: object.source, reason, message: fetched.message });
      health.push({
        ...id,
        status: fetched.outcome === "not-found" ? "NotFound" : "Unknown",
        message: fetched.message ?? reason,
      });
    }
    for (const related of input.fetched.related) {
      if (related.outcome === "found" || !related.message || (input.sees && !input.sees(related.namespace))) continue;
      missing.push({
        apiVersion: "v1",
        kind: "Pod(related)",
        name: equalitySelector(related.selector),
        namespace: related.namespace,
        reason: REASONS[related.outcome],
        message: related.message,
      });
    }
  }

  const relatedPods =
    "failure" in input.fetched
      ? []
      : input.fetched.related
          .filter((related) => related.outcome === "found" && related.table)
          .filter((related) => !input.sees || input.sees(related.namespace))
          .map((related) => ({
            namespace: related.namespace,
            selector: related.selector,
            columns: related.table!.columns,
            rows: related.table!.rows.map((row) => row.cells),
            objects: related.table!.rows.flatMap((row) => (row.object ? [row.object] : [])),
            listMetadata: related.table!.metadata ?? {},
          }));

  // Why the resources that are not Current are so: the pods already read and the namespace's events (why/).
  const why =
    "failure" in input.fetched
      ? {}
      : explain(
          {
            resources,
            related: input.fetched.related.map((related) => ({
              owners: related.owners,
              objects: related.table?.rows.flatMap((row) => (row.object ? [row.object] : [])) ?? [],
            })),
            events: input.fetched.events,
          },
          input.observedAt,
        );

  // A document that could not be read is a resource whose state nobody knows: never Current.
  const statuses = [...health.map((entry) => entry.status), ...input.problems.map(() => "Unknown" as const)];
  const summary = uninstalled
    ? uninstalledSummary(gone, resources.length, statuses.filter((status) => status === "Unknown").length)
    : summarizeHealth(statuses);
  const counters =
    "failure" in input.fetched
      ? { requests: 0, retries: 0, maxInFlight: 0 }
      : {
          requests: input.fetched.counters.requests,
          retries: input.fetched.counters.retries,
          maxInFlight: input.fetched.counters.maxInFlight,
        };
  return {
    release: releaseView(input.release, input.redacted),
    cluster: input.cluster,
    observedAt: input.observedAt.toISOString(),
    resources,
    relatedPods,
    missing,
    health: {
      ruleset: HEALTH_RULESET,
      overall: summary.status,
      message: summary.message,
      ...citing(verdictCause("causes" in why ? why.causes : undefined, summary.status)),
      resources: health,
    },
    complete: missing.every((entry) => entry.reason === "not found"),
    counters: { ...counters, durationMs: input.durationMs },
    ...why,
    ...(outside > 0 ? { outsideAccess: { resources: outside } } : {}),
    ...(!input.drift || "failure" in input.fetched
      ? {}
      : {
          drift: detectDrift({
            objects: driftObjects,
            applyMethod: input.release.apply_method,
            laterRevisions: input.laterRevisions,
          }),
        }),
  };
}

/** The verdict's citation, when it has one (the JSON's `health.cause`, the text's `because …`). */
function citing(cause: string | undefined): { cause?: string } {
  return cause === undefined ? {} : { cause };
}

function identity(object: ManifestObject) {
  return { apiVersion: object.apiVersion, kind: object.kind, name: object.name, namespace: object.namespace };
}

/** The release without its config values, and with Secret values out of every manifest. */
export function releaseView(release: Release, redacted?: { manifest: string; hooks: readonly string[] }): ReleaseView {
  return {
    name: release.name,
    namespace: release.namespace,
    version: release.version,
    info: { ...release.info!, status: release.info!.status },
    chart: release.chart?.metadata,
    manifest: redacted?.manifest ?? redactManifest(release.manifest ?? ""),
    hooks: (release.hooks ?? []).map((hook, i) => ({
      ...hook,
      manifest: redacted?.hooks[i] ?? redactManifest(hook.manifest ?? ""),
    })),
    apply_method: release.apply_method,
  };
}

/**
 * The related pods a workload's own selector matches (matchLabels, as Helm
 * selects them), so a Deployment still rolling out whose pod is in
 * CrashLoopBackOff reads as Failed (kstatus's pod-controller rule), not InProgress.
 */
function podsSelectedBy(workload: Record<string, unknown>, pods: Record<string, unknown>[]): Record<string, unknown>[] {
  const spec = workload.spec as { selector?: { matchLabels?: Record<string, string> } } | undefined;
  const matchLabels = spec?.selector?.matchLabels;
  if (!matchLabels || Object.keys(matchLabels).length === 0) return [];
  const namespace = (workload.metadata as { namespace?: string } | undefined)?.namespace;
  return pods.filter((pod) => {
    const metadata = pod.metadata as { namespace?: string } | undefined;
    if (namespace && metadata?.namespace && metadata.namespace !== namespace) return false;
    return labelsMatch(matchLabels, pod);
  });
}

/**
 * The verdict of an uninstalled release: its desired state is "gone" (kstatus's deletion
 * case), so it is Current, never Failed; the message counts what is still in the cluster
 * (kept by `helm.sh/resource-policy: keep`, or left behind). What could not be read (the
 * cluster unreachable, a document that does not parse, a read that failed) makes it Unknown:
 * nobody saw it gone.
 */
function uninstalledSummary(
  gone: number,
  live: number,
  unread: number,
): { status: "Current" | "Unknown"; message: string } {
  const total = gone + live + unread;
  const noun = total === 1 ? "resource" : "resources";
  if (unread > 0) {
    return { status: "Unknown", message: `uninstalled, ${unread} of ${total} ${noun} could not be read` };
  }
  return {
    status: "Current",
    message:
      live === 0
        ? `uninstalled, all ${total} ${noun} gone`
        : `uninstalled, ${live} of ${total} ${noun} still in the cluster (kept or left behind)`,
  };
}
