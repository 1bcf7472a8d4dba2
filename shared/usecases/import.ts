/**
 * Import from Helm's own storage: one Secret/ConfigMap or a List of them (what
 * `kubectl get secrets -A -l owner=helm -o json` prints). Non-Helm objects are
 * skipped, a broken object is reported with its name and does not stop the
 * others; only a store outage aborts (re-running is idempotent).
 */
import { type ClusterScope, requireKnownCluster } from "../clusters/scope.ts";
import { isDomainError, ValidationError } from "../errors.ts";
import type { Logger } from "../ports.ts";
import {
  decodeHelmStorageObject,
  describeObject,
  isHelmStorageObject,
  type KubeObject,
} from "../release/helm-codec.ts";
import { validateClusterName } from "../release/validation.ts";
import type { ReleaseStore } from "../store/release-store.ts";

export type ImportOutcome = "imported" | "unchanged" | "skipped" | "failed";

export interface ImportResult {
  /** "Secret/ns/name" */
  object: string;
  outcome: ImportOutcome;
  /** "namespace/name" of the release, once decoded. */
  release?: string;
  revision?: number;
  error?: string;
}

export interface ImportSummary {
  cluster: string;
  imported: number;
  unchanged: number;
  skipped: number;
  failed: number;
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
}

/** Failures that are about one object; anything else (store down, bug) stops the import. */
const PER_OBJECT_KINDS = new Set(["validation", "conflict", "too-large", "corrupt"]);

export async function importReleases(
  deps: { store: ReleaseStore; clusters: ClusterScope; logger?: Logger },
  input: ImportInput,
): Promise<ImportSummary> {
  const cluster = validateClusterName(input.cluster);
  requireKnownCluster(deps.clusters, cluster);
  const objects = objectsOf(input.document);
  const summary: ImportSummary = { cluster, imported: 0, unchanged: 0, skipped: 0, failed: 0, results: [] };
  for (const object of objects) {
    const result = await importOne(deps, cluster, object);
    summary[result.outcome] += 1;
    summary.results.push(result);
    if (result.outcome === "failed") {
      deps.logger?.warn("release import failed", { cluster, object: result.object, error: result.error });
    }
    input.onProgress?.({ done: summary.results.length, total: objects.length, result });
  }
  deps.logger?.info("release import finished", {
    cluster,
    imported: summary.imported,
    unchanged: summary.unchanged,
    skipped: summary.skipped,
    failed: summary.failed,
  });
  return summary;
}

async function importOne(deps: { store: ReleaseStore }, cluster: string, object: unknown): Promise<ImportResult> {
  const name = describeObject(object);
  if (!isHelmStorageObject(object)) return { object: name, outcome: "skipped" };
  let release: ReturnType<typeof decodeHelmStorageObject>;
  try {
    release = decodeHelmStorageObject(object as KubeObject);
  } catch (error) {
    return { object: name, outcome: "failed", error: messageOf(error) };
  }
  const identity = { release: `${release.namespace}/${release.name}`, revision: release.version };
  try {
    const put = await deps.store.putRevision(cluster, release);
    return { object: name, outcome: put === "unchanged" ? "unchanged" : "imported", ...identity };
  } catch (error) {
    if (isDomainError(error) && PER_OBJECT_KINDS.has(error.kind)) {
      return { object: name, outcome: "failed", ...identity, error: error.message };
    }
    throw error;
  }
}

function objectsOf(document: unknown): unknown[] {
  if (Array.isArray(document)) return document;
  if (!document || typeof document !== "object") {
    throw new ValidationError(
      "the document is not a Kubernetes object: expected a Secret, a ConfigMap or a List of them (JSON)",
      "InvalidImportDocument",
    );
  }
  const { kind, items } = document as { kind?: unknown; items?: unknown };
  if (typeof kind === "string" && kind.endsWith("List")) {
    if (!Array.isArray(items)) {
      throw new ValidationError(`the ${kind} has no items list`, "InvalidImportDocument");
    }
    return items;
  }
  return [document];
}

function messageOf(error: unknown): string {
  return isDomainError(error) ? error.message : `unexpected error: ${(error as Error)?.message ?? String(error)}`;
}
