import type { ReleaseKey } from "../release/model.ts";
import { resolveLimit } from "../store/paging.ts";
import type { Page, PageRequest } from "../store/release-store.ts";
import { AuditRunNotFoundError, SnapshotNotFoundError } from "./errors.ts";
import { type AuditRun, driftCountOf, type FleetEntry, parseSnapshotId, type Snapshot } from "./model.ts";
import { expired } from "./retention.ts";
import type { RollupDay } from "./rollup-items.ts";
import { checkSnapshot, decodeScopedCursor, encodeScopedCursor } from "./snapshot-codec.ts";
import type {
  FleetFilter,
  MessageTally,
  SeenAgain,
  SnapshotQuery,
  SnapshotStore,
  WriteOutcome,
} from "./snapshot-store.ts";
import {
  checkFleetFilter,
  durationOf,
  fleetOrder,
  fleetScope,
  inFleetFilter,
  isLaterSighting,
  listScope,
} from "./store-rules.ts";

const releaseId = (r: ReleaseKey) => `${r.cluster}#${r.namespace}#${r.name}`;
const clone = <T>(value: T): T => structuredClone(value);

interface StoredRun extends AuditRun {
  sentParts: Set<string>;
  doneParts: Set<string>;
  /** Completed parts the planner has not (yet) recorded as sent: counted when it does, else never. */
  unsentDone: Map<string, MessageTally & { at: string }>;
}

export class MemorySnapshotStore implements SnapshotStore {
  /** Per release, oldest first. */
  readonly #snapshots = new Map<string, (Snapshot & { text: string })[]>();
  readonly #runs = new Map<string, StoredRun>();
  readonly #notify = new Map<string, { state: "sending" | "sent" | "failed"; at: number }>();
  readonly #slo = new Map<string, { state: string; expiresAt: number }>();
  /** Rollup day items by `<day>#<cluster>` (kept as long as the store: tests and one-shot audits). */
  readonly #rollups = new Map<string, RollupDay>();

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

  async startRun(runId: string, startedAt: string): Promise<AuditRun & { sentParts: string[] }> {
    let run = this.#runs.get(runId);
    if (!run) {
      run = {
        runId,
        startedAt,
        planned: 0,
        clusters: [],
        messages: 0,
        done: 0,
        failed: 0,
        unhealthy: 0,
        changed: 0,
        sentParts: new Set(),
        doneParts: new Set(),
        unsentDone: new Map(),
      };
      this.#runs.set(runId, run);
    }
    return { ...publicRun(run), sentParts: [...run.sentParts] };
  }

  async recordSent(runId: string, parts: { id: string; releases: number; cluster: string }[]): Promise<void> {
    const run = this.#run(runId);
    for (const part of parts) {
      if (run.sentParts.has(part.id)) continue;
      run.sentParts.add(part.id);
      run.planned += part.releases;
      run.messages += 1;
      if (!run.clusters.includes(part.cluster)) run.clusters = [...run.clusters, part.cluster].sort();
      const done = run.unsentDone.get(part.id);
      if (done) {
        run.unsentDone.delete(part.id);
        addTally(run, done, done.at);
      }
    }
  }

  async finishPlanning(runId: string, plannedAt: string): Promise<void> {
    this.#run(runId).plannedAt ??= plannedAt;
  }

  async completeMessage(
    runId: string,
    partId: string,
    tally: MessageTally,
    at: string,
    rollups: readonly RollupDay[] = [],
  ): Promise<boolean> {
    const run = this.#run(runId);
    if (run.doneParts.has(partId)) return false;
    run.doneParts.add(partId);
    for (const add of rollups) {
      const key = `${add.day}#${add.cluster}`;
      const stored = this.#rollups.get(key) ?? { day: add.day, cluster: add.cluster, values: {} };
      for (const [name, value] of Object.entries(add.values)) stored.values[name] = (stored.values[name] ?? 0) + value;
      this.#rollups.set(key, stored);
    }
    // Only the planner's own parts count (a worker may finish a part before its SENT is recorded).
    if (run.sentParts.has(partId)) addTally(run, tally, at);
    else run.unsentDone.set(partId, { ...tally, at });
    return true;
  }

  async rollups(days: readonly string[], cluster: string | undefined, _now: Date): Promise<RollupDay[]> {
    const wanted = new Set(days);
    return [...this.#rollups.values()]
      .filter((r) => wanted.has(r.day) && (cluster === undefined || r.cluster === cluster))
      .sort((a, b) => a.day.localeCompare(b.day) || a.cluster.localeCompare(b.cluster))
      .map(clone);
  }

  async getRun(runId: string): Promise<AuditRun> {
    return publicRun(this.#run(runId));
  }

  async listRuns(page: PageRequest): Promise<Page<AuditRun>> {
    const limit = resolveLimit(page.limit);
    const runs = [...this.#runs.values()].sort((a, b) => b.runId.localeCompare(a.runId));
    const start = page.cursor ? decodeScopedCursor("audits", "", page.cursor) : undefined;
    const from = start === undefined ? 0 : runs.findIndex((r) => r.runId < start);
    if (from < 0) return { items: [] };
    const items = runs.slice(from, from + limit).map(publicRun);
    return from + limit < runs.length
      ? { items, cursor: encodeScopedCursor("audits", "", items.at(-1)!.runId) }
      : { items };
  }

  async claimNotification(id: string, now: Date, staleMs = 300_000): Promise<boolean> {
    const state = this.#notify.get(id);
    if (state && (state.state === "sent" || (state.state === "sending" && now.getTime() - state.at < staleMs))) {
      return false;
    }
    this.#notify.set(id, { state: "sending", at: now.getTime() });
    return true;
  }

  async finishNotification(id: string, outcome: "sent" | "failed", now: Date): Promise<void> {
    this.#notify.set(id, { state: outcome, at: now.getTime() });
  }

  async sloState(release: ReleaseKey, now: Date): Promise<string | undefined> {
    const stored = this.#slo.get(releaseId(release));
    return stored && !expired(stored, now) ? stored.state : undefined;
  }

  async swapSloState(
    release: ReleaseKey,
    from: string | undefined,
    to: string,
    at: Date,
    expiresAt: number,
  ): Promise<WriteOutcome> {
    const stored = this.#slo.get(releaseId(release));
    const current = stored && !expired(stored, at) ? stored.state : undefined;
    if (current !== from) return "conflict";
    this.#slo.set(releaseId(release), { state: to, expiresAt });
    return "ok";
  }

  /** Tests: damage a stored snapshot the way a bad manual edit would. */
  corrupt(id: string): void {
    const { release } = parseSnapshotId(id);
    const found = this.#snapshots.get(releaseId(release))?.find((s) => s.id === id);
    if (found) (found as { health: unknown }).health = "not an object";
  }

  #run(runId: string): StoredRun {
    const run = this.#runs.get(runId);
    if (!run) throw new AuditRunNotFoundError(runId);
    return run;
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

function addTally(run: StoredRun, tally: MessageTally, at: string): void {
  run.done += tally.done;
  run.failed += tally.failed;
  run.unhealthy += tally.unhealthy;
  run.changed += tally.changed;
  if (!run.lastDoneAt || at > run.lastDoneAt) run.lastDoneAt = at;
}

/** Worst first, then by release: the order both stores answer in. */
function publicRun(run: StoredRun | AuditRun): AuditRun {
  const { sentParts: _s, doneParts: _d, unsentDone: _u, ...rest } = run as StoredRun;
  const copy: AuditRun = clone({ ...rest });
  const duration = durationOf(copy);
  if (duration !== undefined) copy.durationMs = duration;
  return copy;
}
