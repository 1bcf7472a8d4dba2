/**
 * The in-memory AttributionStore: the DynamoDB one's semantics (docs/who.md), held to the same contract: a
 * subject is kept once per release (the DynamoDB partition), `due` hands out in `dueSortKey` order, a settled one
 * expires `ATTRIBUTION_RETENTION_DAYS` after it was enqueued (the clock says when: DynamoDB's TTL deletes it there).
 */
import type { Clock } from "../ports.ts";
import { systemClock } from "../ports.ts";
import type { ReleaseKey } from "../release/model.ts";
import {
  type Attribution,
  type AttributionStore,
  type AttributionSubject,
  attributionExpired,
  attributionKey,
  type ClusterAuditLogging,
  pendingAttribution,
  supersedes,
} from "./attribution.ts";
import { dueAt, dueSortKey } from "./due-order.ts";

export class MemoryAttributionStore implements AttributionStore {
  /** cluster → namespace/release/key → attribution. */
  readonly #kept = new Map<string, Map<string, Attribution>>();
  readonly #logging = new Map<string, ClusterAuditLogging>();
  readonly #clock: Clock;

  constructor(clock: Clock = systemClock) {
    this.#clock = clock;
  }

  async enqueue(subjects: readonly AttributionSubject[], now: Date): Promise<number> {
    let added = 0;
    for (const cluster of new Set(subjects.map((s) => s.cluster))) this.#expire(this.#cluster(cluster));
    for (const subject of subjects) {
      const kept = this.#cluster(subject.cluster);
      const key = attributionKey(subject);
      const held = kept.get(slot(subject, key));
      if (held && !supersedes(subject, held)) continue;
      kept.set(slot(subject, key), pendingAttribution(subject, now));
      added++;
    }
    return added;
  }

  async due(cluster: string, now: Date, limit: number): Promise<Attribution[]> {
    const at = now.getTime();
    return [...(this.#kept.get(cluster)?.values() ?? [])]
      .filter((a) => a.state === "pending" && Date.parse(dueAt(a)) <= at)
      .sort((a, b) => dueSortKey(a).localeCompare(dueSortKey(b)))
      .slice(0, Math.max(0, limit))
      .map((a) => structuredClone(a));
  }

  async settle(attributions: readonly Attribution[]): Promise<void> {
    for (const attribution of attributions) {
      this.#cluster(attribution.cluster).set(slot(attribution.subject, attribution.key), structuredClone(attribution));
    }
  }

  async forRelease(release: ReleaseKey, only?: AttributionSubject["type"]): Promise<Attribution[]> {
    const kept = this.#kept.get(release.cluster);
    if (kept) this.#expire(kept);
    return [...(kept?.values() ?? [])]
      .filter((a) => a.subject.namespace === release.namespace && a.subject.release === release.name)
      .filter((a) => !only || a.subject.type === only)
      .map((a) => structuredClone(a));
  }

  async clusterLogging(cluster: string): Promise<ClusterAuditLogging | undefined> {
    const logging = this.#logging.get(cluster);
    return logging && { ...logging };
  }

  async setClusterLogging(cluster: string, logging: ClusterAuditLogging): Promise<void> {
    this.#logging.set(cluster, { ...logging });
  }

  /** What DynamoDB's TTL would have deleted by now is gone (so it can be enqueued again, as there). */
  #expire(kept: Map<string, Attribution>): void {
    const now = this.#clock.now();
    for (const [slot, attribution] of kept) if (attributionExpired(attribution, now)) kept.delete(slot);
  }

  #cluster(cluster: string): Map<string, Attribution> {
    let kept = this.#kept.get(cluster);
    if (!kept) {
      kept = new Map();
      this.#kept.set(cluster, kept);
    }
    return kept;
  }
}

/** Where a subject is kept: per release, as the DynamoDB store's partition (shared/who/dynamodb-attribution-store.ts). */
function slot(subject: AttributionSubject, key: string): string {
  return `${subject.namespace}\n${subject.release}\n${key}`;
}
