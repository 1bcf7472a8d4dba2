/** The history's contracts on the memory stores (`STORE_DRIVER=memory`). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { openHistoryStores, snapshotsConfigFromEnv } from "../../shared/snapshots/config.ts";
import { DynamoDbSnapshotStore } from "../../shared/snapshots/dynamodb-snapshot-store.ts";
import { memoryHistoryStores } from "../../shared/snapshots/history-stores.ts";
import { MemoryAuditRuns } from "../../shared/snapshots/memory-audit-runs.ts";
import {
  MemoryNotificationClaims,
  MemoryRollups,
  MemorySloStates,
} from "../../shared/snapshots/memory-small-stores.ts";
import { MemorySnapshotStore } from "../../shared/snapshots/memory-snapshot-store.ts";
import { openReleaseStore, openSyncStateStore, storeConfigFromEnv } from "../../shared/store/config.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { MemorySyncStateStore } from "../../shared/store/sync-state-memory.ts";
import { auditRunContract } from "./audit-run-contract.ts";
import { snapshotStoreContract } from "./contract.ts";
import { rollupContract } from "./rollup-contract.ts";
import { notificationClaimsContract, sloStateContract } from "./small-stores-contract.ts";
import { staleHintContract } from "./stale-hint-contract.ts";

const snapshots = async () => memoryHistoryStores().snapshots;

snapshotStoreContract("memory", snapshots, {
  corrupt: async (store, id) => (store as MemorySnapshotStore).corrupt(id),
});
staleHintContract("memory", snapshots);
auditRunContract("memory", async () => memoryHistoryStores().auditRuns);
rollupContract("memory", async () => memoryHistoryStores());
notificationClaimsContract("memory", async () => memoryHistoryStores());
sloStateContract("memory", async () => memoryHistoryStores());

test("one STORE_DRIVER for every store: memory opens the releases, the sync state and the history's five in memory", () => {
  const config = storeConfigFromEnv({ STORE_DRIVER: "memory" });
  assert.ok(openReleaseStore(config) instanceof MemoryReleaseStore);
  assert.ok(openSyncStateStore(config) instanceof MemorySyncStateStore);
  const stores = openHistoryStores(config, snapshotsConfigFromEnv({}));
  assert.ok(stores.snapshots instanceof MemorySnapshotStore);
  assert.ok(stores.auditRuns instanceof MemoryAuditRuns);
  assert.ok(stores.rollups instanceof MemoryRollups);
  assert.ok(stores.notifications instanceof MemoryNotificationClaims);
  assert.ok(stores.sloStates instanceof MemorySloStates);
  const dynamo = openHistoryStores(
    storeConfigFromEnv({ AWS_REGION: "eu-west-1", STORE_DRIVER: "dynamodb" }),
    snapshotsConfigFromEnv({}),
  );
  assert.ok(dynamo.snapshots instanceof DynamoDbSnapshotStore);
});
