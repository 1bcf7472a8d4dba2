/**
 * One Helm storage object (a release Secret or ConfigMap) into the store, with the import's checks: Helm
 * decoding with its size and gzip-bomb guards, the manifest read within the status reader's bounds. The import
 * use case (usecases/import.ts) runs every object of a document through it; the release sync (sync/) every
 * object it fetched; a status's freshness check decodes with it in memory. A room of its own so that sync/,
 * which usecases/ uses, does not import a use case.
 */
import { isDomainError } from "../errors.ts";
import { parseManifest } from "../manifest/manifest.ts";
import {
  decodeHelmStorageObject,
  describeObject,
  isHelmStorageObject,
  type KubeObject,
} from "../release/helm-codec.ts";
import type { Release } from "../release/model.ts";
import { claimedIdentity, identityConflict, type RevisionSource, sourceOf } from "../release/storage-identity.ts";
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
  /** Stored, but `helm status` will report these manifest documents as errors. */
  warnings?: string[];
}

/** Failures that are about one object; anything else (store down, bug) stops the import. */
const PER_OBJECT_KINDS = new Set(["validation", "conflict", "too-large", "corrupt"]);

/** What the release sync needs beyond an import result: how the store took it. */
export interface StorageImport {
  result: ImportResult;
  /** For `imported`: a new revision, or a stored one whose status Helm rewrote. */
  stored?: "created" | "updated";
  /** For `failed`: the store holds this revision with different content (ReleaseConflictError). */
  conflict?: true;
}

/**
 * One object through the import's checks (Helm decoding with its size and gzip-bomb guards, manifest bounds)
 * into the store; the release sync imports what it fetched through this too. Per-object faults are a `failed`
 * result; a store outage throws.
 */
export async function importStorageObject(
  deps: { store: ReleaseStore },
  cluster: string,
  object: unknown,
  via: RevisionSource["via"],
): Promise<StorageImport> {
  const decoded = decodeStorageObject(object);
  const { release, result } = decoded;
  if (!release) return { result };
  try {
    const put = await deps.store.putRevision(cluster, release, sourceOf(object as KubeObject, via));
    if (put === "unchanged") return { result: { ...result, outcome: "unchanged" } };
    return { result, stored: put };
  } catch (error) {
    const failed = (message: string): ImportResult => {
      const { warnings: _warnings, ...identity } = result;
      return { ...identity, outcome: "failed", error: message };
    };
    if (isDomainError(error) && PER_OBJECT_KINDS.has(error.kind)) {
      return { result: failed(error.message), ...(error.kind === "conflict" ? { conflict: true as const } : {}) };
    }
    // A stack overflow is about this object's shape (the stores bound depth first; this is the backstop).
    if (error instanceof RangeError) return { result: failed(messageOf(error)) };
    throw error;
  }
}

/**
 * Decodes one storage object in memory with the import's checks, without writing it: a status's freshness
 * check answers for a revision decoded here. `release` is absent when the object is skipped or failed.
 * Helm's identity rule (release/storage-identity.ts) is checked here, so no path can file a payload under
 * another release than its object's: a disagreeing object fails, named by its own identity.
 */
export function decodeStorageObject(object: unknown): { result: ImportResult; release?: Release } {
  const name = describeObject(object);
  if (!isHelmStorageObject(object)) return { result: { object: name, outcome: "skipped" } };
  let release: Release;
  try {
    release = decodeHelmStorageObject(object as KubeObject);
  } catch (error) {
    return { result: { object: name, outcome: "failed", error: messageOf(error) } };
  }
  const conflict = identityConflict(object as KubeObject, release);
  if (conflict) {
    return { result: { object: name, outcome: "failed", ...claimedIdentity(object as KubeObject), error: conflict } };
  }
  const identity = { release: `${release.namespace}/${release.name}`, revision: release.version };
  const manifest = checkManifests(release);
  if (manifest.refused) return { result: { object: name, outcome: "failed", ...identity, error: manifest.refused } };
  const result: ImportResult = { object: name, outcome: "imported", ...identity };
  if (manifest.warnings.length > 0) result.warnings = manifest.warnings;
  return { result, release };
}

/**
 * The manifest is read the way `status` will read it. A document beyond the
 * reader's bounds (an alias bomb, absurd nesting) refuses the revision: Helm
 * could not have applied it, and storing it would only store a broken status.
 * Other unreadable documents are stored and flagged.
 */
function checkManifests(release: Release): { refused?: string; warnings: string[] } {
  const warnings: string[] = [];
  const { problems } = parseManifest(release.manifest);
  for (const problem of problems) {
    const what = [problem.kind, problem.name].filter(Boolean).join("/") || "a document";
    const where = problem.source ? ` (${problem.source})` : "";
    const line = `manifest ${what}${where}: ${problem.message}`;
    if (problem.overLimit) return { refused: `${line}; the manifest cannot be read within bounds`, warnings };
    warnings.push(line);
  }
  return { warnings };
}

function messageOf(error: unknown): string {
  return isDomainError(error) ? error.message : `unexpected error: ${(error as Error)?.message ?? String(error)}`;
}
