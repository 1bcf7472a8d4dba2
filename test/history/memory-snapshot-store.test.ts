import { MemorySnapshotStore } from "../../shared/history/memory-snapshot-store.ts";
import { snapshotStoreContract } from "./contract.ts";

snapshotStoreContract("memory", async () => new MemorySnapshotStore(), {
  corrupt: async (store, id) => (store as MemorySnapshotStore).corrupt(id),
});
