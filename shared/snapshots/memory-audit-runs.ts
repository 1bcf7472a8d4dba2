/** The in-memory AuditRunStore (tests, `STORE_DRIVER=memory`): the DynamoDB runs' counting rules on a Map. */
import { resolveLimit } from "../store/paging.ts";
import type { Page, PageRequest } from "../store/release-store.ts";
import type { AuditRunStore, MessageTally, SentPart } from "./audit-run-store.ts";
import { AuditRunNotFoundError } from "./errors.ts";
import type { MemoryRollups } from "./memory-small-stores.ts";
import type { AuditRun } from "./model.ts";
import { decodeScopedCursor, encodeScopedCursor } from "./snapshot-codec.ts";
import { durationOf } from "./store-rules.ts";

interface StoredRun extends AuditRun {
  sentParts: Set<string>;
  doneParts: Set<string>;
  /** Completed parts the planner has not (yet) recorded as sent: counted when it does, else never. */
  unsentDone: Map<string, MessageTally & { at: string }>;
}

export class MemoryAuditRuns implements AuditRunStore {
  readonly #runs = new Map<string, StoredRun>();
  /** Where a message's rollups are added with its completion (the same memory the RollupStore reads). */
  readonly #rollups: MemoryRollups;

  constructor(rollups: MemoryRollups) {
    this.#rollups = rollups;
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

  async recordSent(runId: string, parts: SentPart[]): Promise<void> {
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

  // Typed by the port (one signature, written once).
  completeMessage: AuditRunStore["completeMessage"] = async (runId, partId, tally, at, rollups = []) => {
    const run = this.#run(runId);
    if (run.doneParts.has(partId)) return false;
    run.doneParts.add(partId);
    for (const add of rollups) this.#rollups.add(add);
    // Only the planner's own parts count (a worker may finish a part before its SENT is recorded).
    if (run.sentParts.has(partId)) addTally(run, tally, at);
    else run.unsentDone.set(partId, { ...tally, at });
    return true;
  };

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

  #run(runId: string): StoredRun {
    const run = this.#runs.get(runId);
    if (!run) throw new AuditRunNotFoundError(runId);
    return run;
  }
}

function addTally(run: StoredRun, tally: MessageTally, at: string): void {
  run.done += tally.done;
  run.failed += tally.failed;
  run.unhealthy += tally.unhealthy;
  run.changed += tally.changed;
  if (!run.lastDoneAt || at > run.lastDoneAt) run.lastDoneAt = at;
}

function publicRun(run: StoredRun | AuditRun): AuditRun {
  const { sentParts: _s, doneParts: _d, unsentDone: _u, ...rest } = run as StoredRun;
  const copy: AuditRun = structuredClone({ ...rest });
  const duration = durationOf(copy);
  if (duration !== undefined) copy.durationMs = duration;
  return copy;
}
