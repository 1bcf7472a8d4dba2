/**
 * The latest snapshot of each release this worker has read or written, so a stable release's next audit is one
 * conditional UpdateItem instead of a Query and an UpdateItem. Safe when stale: every write is conditional on
 * what the entry says (digest, still the latest, lastRunId older than the run), a failed condition reads the
 * store again (record.ts), and a stale entry is replaced by what was read. Bounded (oldest entry dropped first);
 * owned by the worker runtime that creates it, not a module global.
 */
import type { ReleaseKey } from "../release/model.ts";
import type { Snapshot } from "../snapshots/model.ts";

export const DEFAULT_LATEST_CACHE_ENTRIES = 20_000;

export class LatestSnapshotCache {
  readonly #entries = new Map<string, Snapshot>();
  readonly #max: number;
  hits = 0;
  misses = 0;

  constructor(maxEntries = DEFAULT_LATEST_CACHE_ENTRIES) {
    this.#max = Math.max(0, Math.floor(maxEntries));
  }

  get(release: ReleaseKey): Snapshot | undefined {
    const found = this.#entries.get(keyOf(release));
    if (found) this.hits++;
    else this.misses++;
    return found;
  }

  set(snapshot: Snapshot): void {
    if (this.#max === 0) return;
    const key = keyOf(snapshot.release);
    this.#entries.delete(key);
    this.#entries.set(key, snapshot);
    if (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value!);
  }

  get size(): number {
    return this.#entries.size;
  }
}

const keyOf = (r: ReleaseKey) => `${r.cluster}\u0000${r.namespace}\u0000${r.name}`;
