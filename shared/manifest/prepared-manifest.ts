import { type ManifestObject, type ManifestProblem, parseManifest } from "./manifest.ts";
import { redactManifest } from "./redact.ts";

/**
 * A stored revision's manifest, parsed and redacted once per warm process
 * (per KubeReader, which owns the cache).
 *
 * A revision never changes once stored, yet every status re-parsed its whole
 * manifest with `yaml` (≈ 5 ms for 40 documents, the largest single item of
 * the engine's own CPU after HTTP; docs/bench.md). Entries are keyed by
 * cluster/namespace/name/revision and only used when the manifest (and hook
 * manifests) read from the store are the very same text, so a rewritten
 * revision can never be answered from an old parse. The cache is a small LRU
 * bounded in entries and in characters, and what it hands out is deeply frozen:
 * a later stage that tried to change a cached object would throw instead of
 * corrupting the next status.
 */

export interface RevisionKey {
  cluster: string;
  namespace: string;
  name: string;
  revision: number;
}

export interface PreparedManifest {
  readonly objects: readonly ManifestObject[];
  readonly problems: readonly ManifestProblem[];
  /** The manifest with Secret values replaced (redact.ts). */
  readonly redactedManifest: string;
  /** Each hook's manifest, redacted, in the release's hook order. */
  readonly redactedHooks: readonly string[];
}

interface Entry {
  manifest: string;
  hooks: readonly string[];
  prepared: PreparedManifest;
  chars: number;
}

export const MANIFEST_CACHE_MAX_ENTRIES = 64;
/** ≈ 64 MB of UTF-16 text at most, so a few huge manifests cannot crowd a 512 MB Lambda. */
export const MANIFEST_CACHE_MAX_CHARS = 32 * 1024 * 1024;

export interface ManifestCacheLimits {
  /** Revisions kept (default 64). */
  maxEntries?: number;
  /** UTF-16 characters kept, originals and redacted copies together (default 32 Mi ≈ 64 MB). */
  maxChars?: number;
}

/** One per KubeReader: a warm process keeps it, whoever created the reader closes it. */
export class PreparedManifestCache {
  // Map iteration order is insertion order: the first key is the least recently used.
  private readonly entries = new Map<string, Entry>();
  private cachedChars = 0;
  private readonly maxEntries: number;
  private readonly maxChars: number;

  constructor(limits: ManifestCacheLimits = {}) {
    this.maxEntries = Math.max(0, limits.maxEntries ?? MANIFEST_CACHE_MAX_ENTRIES);
    this.maxChars = Math.max(0, limits.maxChars ?? MANIFEST_CACHE_MAX_CHARS);
  }

  prepare(key: RevisionKey, manifest: string, hookManifests: readonly string[]): PreparedManifest {
    const id = `${key.cluster}\u0000${key.namespace}\u0000${key.name}\u0000${key.revision}`;
    const hit = this.entries.get(id);
    if (hit && hit.manifest === manifest && sameTexts(hit.hooks, hookManifests)) {
      this.entries.delete(id);
      this.entries.set(id, hit);
      return hit.prepared;
    }
    if (hit) this.forget(id, hit);

    const prepared = prepareUncached(manifest, hookManifests);
    const chars = textSize(manifest, prepared.redactedManifest, hookManifests, prepared.redactedHooks);
    if (chars > this.maxChars || this.maxEntries === 0) return prepared; // used once, never kept
    this.entries.set(id, { manifest, hooks: [...hookManifests], prepared, chars });
    this.cachedChars += chars;
    for (const [oldId, old] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.cachedChars <= this.maxChars) break;
      this.forget(oldId, old);
    }
    return prepared;
  }

  /** Entries and characters held now (tests, diagnostics). */
  size(): { entries: number; chars: number } {
    return { entries: this.entries.size, chars: this.cachedChars };
  }

  clear(): void {
    this.entries.clear();
    this.cachedChars = 0;
  }

  private forget(id: string, entry: Entry): void {
    this.entries.delete(id);
    this.cachedChars -= entry.chars;
  }
}

/** Parse + redact, no cache: what a one-shot caller (the CLI) needs. */
export function prepareUncached(manifest: string, hookManifests: readonly string[]): PreparedManifest {
  const { objects, problems } = parseManifest(manifest);
  return deepFreeze({
    objects,
    problems,
    redactedManifest: redactManifest(manifest),
    redactedHooks: hookManifests.map(redactManifest),
  });
}

function sameTexts(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((text, i) => text === b[i]);
}

/** The redacted copies share the original's memory when nothing was redacted. */
function textSize(
  manifest: string,
  redacted: string,
  hooks: readonly string[],
  redactedHooks: readonly string[],
): number {
  let chars = manifest.length + (redacted === manifest ? 0 : redacted.length);
  hooks.forEach((hook, i) => {
    chars += hook.length + (redactedHooks[i] === hook ? 0 : redactedHooks[i].length);
  });
  return chars;
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}
