/** The in-memory SnapshotStore (tests, `STORE_DRIVER=memory`): the DynamoDB store's rules (store-rules.ts) on a Map. */
import type { ReleaseKey } from "../release/model.ts";
import { resolveLimit } from "../store/paging.ts";
import type { Page } from "../store/release-store.ts";
import { SnapshotNotFoundError } from "./errors.ts";
import { driftCountOf, type FleetEntry, parseSnapshotId, type Snapshot } from "./model.ts";
import { expired } from "./retention.ts";
import { checkSnapshot, decodeScopedCursor, encodeScopedCursor } from "./snapshot-codec.ts";
import type { FleetFilter, SeenAgain, SnapshotQuery, SnapshotStore, WriteOutcome } from "./snapshot-store.ts";
import { checkFleetFilter, fleetOrder, fleetScope, inFleetFilter, isLaterSighting, listScope } from "./store-rules.ts";

/** The memory stores' key of a release. */
export const releaseId = (r: ReleaseKey) => `${r.cluster}#${r.namespace}#${r.name}`;
const clone = <T>(value: T): T => structuredClone(value);

export class MemorySnapshotStore implements SnapshotStore {
  /** Per release, oldest first. */
  readonly #snapshots = new Map<string, (Snapshot & { text: string })[]>();

  async latest(release: ReleaseKey): Promise<Snapshot | undefined> {
    const list = this.#snapshots.get(releaseId(release));
    const last = list?.at(-1);
    if (!last) return undefined;
    const { text: _text, ownText: _ownText, ...snapshot } = clone(last);
    return snapshot;
  }

  async extend(snapshot: Snapshot, seen: SeenAgain): Promise<WriteOutcome> {
    const last = this.#snapshots.get(releaseId(snapshot.release))?.at(-1);
    if (!last || last.id !== snapshot.id || last.digest !== snapshot.digest || !isLaterSighting(last, seen)) {
      return "conflict";
    }
    last.previousSeenAt = last.lastSeenAt;
    last.lastSeenAt = seen.observedAt;
    last.lastRunId = seen.runId;
    last.expiresAt = seen.expiresAt;
    last.seenCount += 1;
    if (seen.freshness) last.freshness = clone(seen.freshness);
    else delete last.freshness;
    return "ok";
  }

  async create(next: Snapshot & { text: string }, previous?: Snapshot): Promise<WriteOutcome> {
    const key = releaseId(next.release);
    const list = this.#snapshots.get(key) ?? [];
    if (list.some((s) => s.id === next.id)) return "conflict";
    const last = list.at(-1);
    if ((last?.id ?? undefined) !== previous?.id || (last && last.lastRunId !== previous?.lastRunId)) return "conflict";
    list.push(clone(next));
    this.#snapshots.set(key, list);
    return "ok";
  }

  async get(id: string, now: Date): Promise<Snapshot> {
    const { release } = parseSnapshotId(id);
    const found = this.#snapshots.get(releaseId(release))?.find((s) => s.id === id);
    if (!found || expired(found, now)) throw new SnapshotNotFoundError(id);
    return checkSnapshot(id, clone(found));
  }

  async list(release: ReleaseKey, query: SnapshotQuery, now: Date): Promise<Page<Snapshot>> {
    const limit = resolveLimit(query.limit);
    const scope = listScope(release, query);
    const start = query.cursor ? decodeScopedCursor("snapshots", scope, query.cursor) : undefined;
    const all = [...(this.#snapshots.get(releaseId(release)) ?? [])]
      .reverse()
      .filter((s) => !expired(s, now))
      .filter((s) => !query.since || Date.parse(s.lastSeenAt) >= query.since.getTime())
      .filter((s) => !query.until || Date.parse(s.firstSeenAt) <= query.until.getTime());
    const from = start === undefined ? 0 : all.findIndex((s) => s.runId < start);
    if (from < 0) return { items: [] };
    const items = all.slice(from, from + limit).map(({ text: _t, ownText: _o, ...s }) => clone(s));
    const more = from + limit < all.length;
    return more ? { items, cursor: encodeScopedCursor("snapshots", scope, items.at(-1)!.runId) } : { items };
  }

  async fleet(filter: FleetFilter, now: Date): Promise<Page<FleetEntry>> {
    const limit = resolveLimit(filter.limit);
    checkFleetFilter(filter);
    const entries: FleetEntry[] = [];
    for (const list of this.#snapshots.values()) {
      const last = list.at(-1);
      if (!last || expired(last, now) || !inFleetFilter(last.release, filter)) continue;
      if (filter.health && !filter.health.includes(last.health.overall)) continue;
      entries.push(fleetEntryOf(last));
    }
    entries.sort((a, b) => fleetOrder(a).localeCompare(fleetOrder(b)));
    const scope = fleetScope(filter);
    const start = filter.cursor ? decodeScopedCursor("fleet", scope, filter.cursor) : undefined;
    const from = start === undefined ? 0 : entries.findIndex((e) => fleetOrder(e) > start);
    if (from < 0) return { items: [] };
    const items = entries.slice(from, from + limit);
    return from + limit < entries.length
      ? { items, cursor: encodeScopedCursor("fleet", scope, fleetOrder(items.at(-1)!)) }
      : { items };
  }

  /** Tests: damage a stored snapshot the way a bad manual edit would. */
  corrupt(id: string): void {
    const { release } = parseSnapshotId(id);
    const found = this.#snapshots.get(releaseId(release))?.find((s) => s.id === id);
    if (found) (found as { health: unknown }).health = "not an object";
  }
}

export function fleetEntryOf(snapshot: Snapshot): FleetEntry {
  return {
    release: snapshot.release,
    health: snapshot.health,
    revision: snapshot.revision,
    snapshotId: snapshot.id,
    since: snapshot.firstSeenAt,
    lastSeenAt: snapshot.lastSeenAt,
    driftCount: driftCountOf(snapshot),
    ...(snapshot.freshness ? { freshness: snapshot.freshness } : {}),
  };
}
