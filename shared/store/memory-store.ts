/**
 * A real in-memory ReleaseStore with the DynamoDB store's semantics (content
 * hashes, in-place status updates, conflicts, ordering, cursors), held to the same
 * contract suite. For unit tests of other areas and for runs without any engine.
 */
import type { Release, ReleaseKey, ReleaseMetadata, ReleaseSummary } from "../release/model.ts";
import type { RevisionSource } from "../release/storage-identity.ts";
import { validateReleaseKey, validateRevision } from "../release/validation.ts";
import { ReleaseConflictError, ReleaseNotFoundError } from "./errors.ts";
import {
  cursorPosition,
  cursorRevision,
  decodeCursor,
  encodeCursor,
  listingScope,
  resolveLimit,
  revisionScope,
  wantedStatuses,
} from "./paging.ts";
import type * as port from "./release-store.ts";
import {
  assembleMetadata,
  assembleRelease,
  checkMetadataSize,
  type RevisionParts,
  reconcileMutable,
  splitRelease,
  summaryOf,
  validateReleaseForStore,
  withStoredSource,
} from "./revision-content.ts";

interface StoredRelease {
  key: ReleaseKey;
  revisions: Map<number, RevisionParts>;
}

const sortKey = (key: ReleaseKey) => `${key.cluster}#${key.namespace}#${key.name}`;

export class MemoryReleaseStore implements port.ReleaseStore {
  readonly #releases = new Map<string, StoredRelease>();

  async getRevision(key: ReleaseKey, revision: number): Promise<Release> {
    const k = validateReleaseKey(key);
    const rev = validateRevision(revision);
    const parts = this.#releases.get(sortKey(k))?.revisions.get(rev);
    if (!parts) throw new ReleaseNotFoundError(k, rev);
    const release = structuredClone(assembleRelease(assembleMetadata(parts.fixed, parts.mutable), parts.body));
    return withStoredSource(release, structuredClone(parts.mutable.source));
  }

  async getLatest(key: ReleaseKey): Promise<Release> {
    const k = validateReleaseKey(key);
    const latest = this.#latest(this.#releases.get(sortKey(k)));
    if (!latest) throw new ReleaseNotFoundError(k);
    return this.getRevision(k, latest.fixed.version);
  }

  async getLatestOfEach(keys: readonly ReleaseKey[]): Promise<port.LatestRead[]> {
    return Promise.all(
      keys.map((key) =>
        this.getLatest(key).then(
          (release) => ({ release }),
          (error) => {
            if (error instanceof ReleaseNotFoundError) return { error };
            throw error;
          },
        ),
      ),
    );
  }

  async history(key: ReleaseKey, page: port.PageRequest = {}): Promise<port.Page<ReleaseMetadata>> {
    const k = validateReleaseKey(key);
    const limit = resolveLimit(page.limit);
    const before = page.cursor === undefined ? Infinity : cursorRevision(decodeCursor("history", page.cursor).before);
    const stored = this.#releases.get(sortKey(k));
    if (!stored?.revisions.size && page.cursor === undefined) throw new ReleaseNotFoundError(k);
    const revisions = [...(stored?.revisions.keys() ?? [])].filter((r) => r < before).sort((a, b) => b - a);
    const items = revisions.slice(0, limit).map((r) => {
      const parts = stored!.revisions.get(r)!;
      return structuredClone(assembleMetadata(parts.fixed, parts.mutable));
    });
    const more = revisions.length > limit;
    return more ? { items, cursor: encodeCursor("history", { before: items.at(-1)!.version }) } : { items };
  }

  async putRevision(cluster: string, release: Release, source?: RevisionSource): Promise<port.PutResult> {
    validateReleaseForStore(cluster, release);
    const parts = splitRelease(structuredClone(release));
    if (source) parts.mutable.source = structuredClone(source);
    checkMetadataSize(parts);
    const key: ReleaseKey = { cluster, namespace: release.namespace, name: release.name };
    const id = sortKey(key);
    let stored = this.#releases.get(id);
    const existing = stored?.revisions.get(release.version);
    if (existing) {
      if (existing.contentHash !== parts.contentHash) {
        throw new ReleaseConflictError(key, release.version, "already stored with different content");
      }
      const { result, write } = reconcileMutable(existing.mutable, parts.mutable);
      if (write) existing.mutable = write;
      return result;
    }
    if (!stored) {
      stored = { key, revisions: new Map() };
      this.#releases.set(id, stored);
    }
    stored.revisions.set(release.version, parts);
    return "created";
  }

  async revisionSources(key: ReleaseKey): Promise<{ revision: number; source?: RevisionSource }[]> {
    const stored = this.#releases.get(sortKey(validateReleaseKey(key)));
    return [...(stored?.revisions.entries() ?? [])]
      .sort(([a], [b]) => b - a)
      .map(([revision, parts]) => ({
        revision,
        ...(parts.mutable.source ? { source: structuredClone(parts.mutable.source) } : {}),
      }));
  }

  async removeRevision(key: ReleaseKey, revision: number): Promise<port.RemoveResult> {
    const k = validateReleaseKey(key);
    const rev = validateRevision(revision);
    const stored = this.#releases.get(sortKey(k));
    if (!stored?.revisions.delete(rev)) return "absent";
    if (stored.revisions.size === 0) this.#releases.delete(sortKey(k));
    return "removed";
  }

  async listReleases(filter: port.ListFilter, page: port.PageRequest = {}): Promise<port.Page<ReleaseSummary>> {
    if (filter.cluster !== undefined) validateReleaseKey({ cluster: filter.cluster, namespace: "x", name: "x" });
    if (filter.namespace !== undefined) validateReleaseKey({ cluster: "x", namespace: filter.namespace, name: "x" });
    const statuses = wantedStatuses(filter);
    return this.#page("list", page, listingScope(filter), (summary) => {
      return (
        (filter.cluster === undefined || summary.cluster === filter.cluster) &&
        (filter.namespace === undefined || summary.namespace === filter.namespace) &&
        (statuses === undefined || statuses.includes(summary.status))
      );
    });
  }

  async latestSummaries(keys: readonly ReleaseKey[]): Promise<(ReleaseSummary | undefined)[]> {
    return keys.map((key) => {
      const k = validateReleaseKey(key);
      const latest = this.#latest(this.#releases.get(sortKey(k)));
      return latest && structuredClone(summaryOf(k.cluster, assembleMetadata(latest.fixed, latest.mutable)));
    });
  }

  async listRevisions(filter: port.RevisionFilter, page: port.PageRequest = {}): Promise<port.Page<ReleaseSummary>> {
    const scope = revisionScope(filter);
    const statuses = wantedStatuses({ statuses: filter.statuses }) ?? [];
    const limit = resolveLimit(page.limit);
    const after = page.cursor === undefined ? "" : cursorPosition(decodeCursor("revisions", page.cursor).after, scope);
    const releases = [...this.#releases.values()]
      .map((stored) => ({ id: sortKey(stored.key), stored }))
      .filter((entry) => entry.id.startsWith(scope) && entry.id > after)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const items: ReleaseSummary[] = [];
    for (const [i, { id, stored }] of releases.entries()) {
      for (const revision of [...stored.revisions.keys()].sort((a, b) => a - b)) {
        const parts = stored.revisions.get(revision)!;
        if (!statuses.includes(parts.mutable.status)) continue;
        items.push(structuredClone(summaryOf(stored.key.cluster, assembleMetadata(parts.fixed, parts.mutable))));
      }
      if (items.length >= limit && i < releases.length - 1) {
        return { items, cursor: encodeCursor("revisions", { after: id }) };
      }
    }
    return { items };
  }

  async listDeployed(page: port.PageRequest = {}): Promise<port.Page<ReleaseSummary>> {
    return this.#page("deployed", page, "", (summary) => summary.status === "deployed");
  }

  #latest(stored: StoredRelease | undefined): RevisionParts | undefined {
    if (!stored?.revisions.size) return undefined;
    return stored.revisions.get(Math.max(...stored.revisions.keys()));
  }

  #page(
    kind: string,
    page: port.PageRequest,
    scope: string,
    keep: (s: ReleaseSummary) => boolean,
  ): port.Page<ReleaseSummary> {
    const limit = resolveLimit(page.limit);
    const after = page.cursor === undefined ? "" : cursorPosition(decodeCursor(kind, page.cursor).after, scope);
    const matching = [...this.#releases.values()]
      .map((stored) => ({ id: sortKey(stored.key), stored, latest: this.#latest(stored) }))
      .filter((entry) => entry.latest && entry.id > after)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((entry) => ({
        id: entry.id,
        summary: summaryOf(entry.stored.key.cluster, assembleMetadata(entry.latest!.fixed, entry.latest!.mutable)),
      }))
      .filter((entry) => keep(entry.summary));
    const items = matching.slice(0, limit);
    const result: port.Page<ReleaseSummary> = { items: structuredClone(items.map((i) => i.summary)) };
    if (matching.length > limit) result.cursor = encodeCursor(kind, { after: items.at(-1)!.id });
    return result;
  }
}
