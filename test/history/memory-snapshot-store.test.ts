import { MemorySnapshotStore } from "../../shared/snapshots/memory-snapshot-store.ts";
import { snapshotStoreContract } from "./contract.ts";
import { rollupContract } from "./rollup-contract.ts";
import { staleHintContract } from "./stale-hint-contract.ts";

snapshotStoreContract("memory", async () => new MemorySnapshotStore(), {
  corrupt: async (store, id) => (store as MemorySnapshotStore).corrupt(id),
});
staleHintContract("memory", async () => new MemorySnapshotStore());
rollupContract("memory", async () => new MemorySnapshotStore());
