/**
 * Import from Helm's own storage: one Secret/ConfigMap or a List of them (what
 * `kubectl get secrets -A -l owner=helm -o json` prints). Non-Helm objects are
 * skipped, a broken object is reported with its name and does not stop the
 * others; only a store outage aborts. Objects are written in parallel (bounded),
 * one release's revisions in order; with a deadline, no object is started after
 * it and the summary says how many were not started. Re-running is idempotent
 * (stored revisions come back `unchanged`), so a partial import is continued by
 * sending the same document again. Each revision stored new is enqueued for attribution as the sync's are
 * (docs/who.md): the sync worker later finds who created it; an enqueue failure is logged, never the import's.
 */
import { type ClusterScope, requireKnownCluster } from "../clusters/scope.ts";
import { type ImportResult, importStorageObject } from "../ingest/storage-object.ts";
import { type Clock, type Logger, silentLogger, systemClock } from "../ports.ts";
import { HELM_OBJECT_PREFIX, type KubeObject } from "../release/helm-codec.ts";
import { importObjectsOf } from "../release/import-document.ts";
import { validateClusterName } from "../release/validation.ts";
import type { ReleaseStore } from "../store/release-store.ts";
import type { AttributionStore, RevisionSubject } from "../who/attribution.ts";
import { enqueueForAttribution, revisionSubject } from "../who/subjects.ts";

export type { ImportOutcome, ImportResult } from "../ingest/storage-object.ts";

export interface ImportSummary {
  cluster: string;
  imported: number;
  unchanged: number;
  skipped: number;
  failed: number;
  /** Objects left alone because the deadline came first (0 when the import is complete). */
  notStarted: number;
  complete: boolean;
  /** What to do about an incomplete import. */
  hint?: string;
  /** One per object started, in document order. */
  results: ImportResult[];
}

export interface ImportProgress {
  done: number;
  total: number;
  result: ImportResult;
}

export interface ImportInput {
  cluster: string;
  /** Parsed JSON/YAML. */
  document: unknown;
  onProgress?: (progress: ImportProgress) => void;
  /** Epoch ms after which no object is started (writes already running finish). */
  deadline?: number;
  /** Objects written at once (default 16). */
  concurrency?: number;
}

export const DEFAULT_IMPORT_CONCURRENCY = 16;
const MAX_IMPORT_CONCURRENCY = 64;

export async function importReleases(
  deps: {
    store: ReleaseStore;
    clusters: ClusterScope;
    logger?: Logger;
    clock?: Clock;
    /** Where each revision stored new is enqueued for attribution; absent (WHO_LOOKUP=off): not attributed. */
    attributions?: AttributionStore;
  },
  input: ImportInput,
): Promise<ImportSummary> {
  const cluster = validateClusterName(input.cluster);
  requireKnownCluster(deps.clusters, cluster);
  const objects = importObjectsOf(input.document);
  const clock = deps.clock ?? systemClock;
  const concurrency = Math.min(
    MAX_IMPORT_CONCURRENCY,
    Math.max(1, Math.floor(input.concurrency ?? DEFAULT_IMPORT_CONCURRENCY)),
  );
  const results: (ImportResult | undefined)[] = new Array(objects.length);
  const summary: ImportSummary = {
    cluster,
    imported: 0,
    unchanged: 0,
    skipped: 0,
    failed: 0,
    notStarted: 0,
    complete: true,
    results: [],
  };
  const lanes = new Lanes(objects);
  let done = 0;
  let outage: unknown;
  const created: RevisionSubject[] = [];
  const worker = async () => {
    for (;;) {
      if (outage !== undefined) return;
      if (input.deadline !== undefined && clock.now().getTime() >= input.deadline) return;
      const next = lanes.take();
      if (next === undefined) return;
      try {
        const { result, stored } = await importStorageObject(deps, cluster, objects[next.index], "import");
        results[next.index] = result;
        const revision = stored === "created" ? storedRevision(result) : undefined;
        if (revision) created.push(revisionSubject(cluster, revision, objects[next.index], clock.now()));
        summary[result.outcome] += 1;
        done += 1;
        if (result.outcome === "failed") {
          deps.logger?.warn("release import failed", { cluster, object: result.object, error: result.error });
        }
        input.onProgress?.({ done, total: objects.length, result });
      } catch (error) {
        outage ??= error;
        return;
      } finally {
        lanes.finish(next.lane);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, objects.length) }, worker));
  // Even when a store outage stops the import: what it did store is attributed (enqueue is idempotent).
  await enqueueForAttribution(
    { attributions: deps.attributions, logger: deps.logger ?? silentLogger },
    created,
    clock.now(),
  );
  if (outage !== undefined) throw outage;

  summary.results = results.filter((r): r is ImportResult => r !== undefined);
  summary.notStarted = objects.length - summary.results.length;
  if (summary.notStarted > 0) {
    summary.complete = false;
    summary.hint =
      `stopped before the deadline with ${summary.notStarted} of ${objects.length} objects not started; ` +
      "re-run the same import to continue (revisions already stored come back unchanged)";
  }
  deps.logger?.info("release import finished", {
    cluster,
    imported: summary.imported,
    unchanged: summary.unchanged,
    skipped: summary.skipped,
    failed: summary.failed,
    notStarted: summary.notStarted,
  });
  return summary;
}

/** The revision an import result names ("namespace/name" and its number), for its attribution subject. */
function storedRevision(result: ImportResult): { namespace: string; release: string; revision: number } | undefined {
  const [namespace, release] = result.release?.split("/") ?? [];
  if (!namespace || !release || result.revision === undefined) return undefined;
  return { namespace, release, revision: result.revision };
}

/**
 * Objects queued per release, so one release's revisions are written in document
 * order (parallel transactions on one release would conflict) while different
 * releases go in parallel. A lane is in `ready` only while nobody works on it.
 */
class Lanes {
  private readonly queues = new Map<string, number[]>();
  private readonly ready: string[] = [];
  private head = 0;

  constructor(objects: unknown[]) {
    for (const [index, object] of objects.entries()) {
      const key = laneOf(object, index);
      const queue = this.queues.get(key);
      if (queue) queue.push(index);
      else {
        this.queues.set(key, [index]);
        this.ready.push(key);
      }
    }
  }

  take(): { index: number; lane: string } | undefined {
    if (this.head >= this.ready.length) return undefined;
    const lane = this.ready[this.head++];
    const index = this.queues.get(lane)!.shift()!;
    return { index, lane };
  }

  finish(lane: string): void {
    const queue = this.queues.get(lane)!;
    if (queue.length > 0) this.ready.push(lane);
    else this.queues.delete(lane);
  }
}

/** "namespace/release" from Helm's object name (sh.helm.release.v1.NAME.vN); any other object is its own lane. */
function laneOf(object: unknown, index: number): string {
  const metadata = (object as KubeObject | null)?.metadata;
  const name = typeof metadata?.name === "string" ? metadata.name : "";
  if (!name.startsWith(HELM_OBJECT_PREFIX)) return `#${index}`;
  const release = name.slice(HELM_OBJECT_PREFIX.length).replace(/\.v\d+$/, "");
  return `${typeof metadata?.namespace === "string" ? metadata.namespace : ""}/${release}`;
}
