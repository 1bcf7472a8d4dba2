import type { SyncedObject, SyncLease, SyncState, SyncStateStore } from "./sync-state.ts";

/** The in-memory SyncStateStore: the DynamoDB one's semantics, held to the same contract. */
export class MemorySyncStateStore implements SyncStateStore {
  readonly #objects = new Map<string, Map<string, SyncedObject>>();
  readonly #states = new Map<string, SyncState>();
  readonly #leases = new Map<string, SyncLease>();

  async objects(cluster: string): Promise<SyncedObject[]> {
    return [...(this.#objects.get(cluster)?.values() ?? [])].map((o) => structuredClone(o));
  }

  async writeObjects(cluster: string, put: readonly SyncedObject[], remove: readonly string[]): Promise<void> {
    let records = this.#objects.get(cluster);
    if (!records) {
      records = new Map();
      this.#objects.set(cluster, records);
    }
    for (const object of remove) records.delete(object);
    for (const record of put) records.set(record.object, structuredClone(record));
  }

  async state<Summary>(cluster: string): Promise<SyncState<Summary>> {
    return structuredClone((this.#states.get(cluster) ?? {}) as SyncState<Summary>);
  }

  async saveState<Summary>(cluster: string, state: SyncState<Summary>): Promise<void> {
    this.#states.set(cluster, structuredClone(state));
  }

  async acquireLease(cluster: string, owner: string, expiresAt: number, now: number) {
    const held = this.#leases.get(cluster);
    if (held && held.owner !== owner && held.expiresAt > now) return { acquired: false, holder: { ...held } };
    this.#leases.set(cluster, { owner, expiresAt });
    return { acquired: true };
  }

  async releaseLease(cluster: string, owner: string): Promise<void> {
    if (this.#leases.get(cluster)?.owner === owner) this.#leases.delete(cluster);
  }
}
