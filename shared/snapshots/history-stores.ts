/**
 * The status history's five stores, one port per concern (snapshots, audit runs, rollups, notification claims,
 * SLO states), opened together on one backend: memory or the snapshots table (SNAPSHOTS_TABLE), by the one
 * STORE_DRIVER switch (config.ts `openHistoryStores`). A consumer takes only the ports it uses.
 */
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { type Clock, systemClock } from "../ports.ts";
import type { StoreLocation } from "../store/dynamodb-errors.ts";
import { Table, type WriteStats } from "../store/dynamodb-table.ts";
import type { AuditRunStore } from "./audit-run-store.ts";
import { DynamoDbAuditRuns } from "./dynamodb-audit-runs.ts";
import { DynamoDbRollups } from "./dynamodb-rollups.ts";
import { DynamoDbNotificationClaims, DynamoDbSloStates } from "./dynamodb-small-stores.ts";
import { DynamoDbSnapshotStore } from "./dynamodb-snapshot-store.ts";
import { MemoryAuditRuns } from "./memory-audit-runs.ts";
import { MemoryNotificationClaims, MemoryRollups, MemorySloStates } from "./memory-small-stores.ts";
import { MemorySnapshotStore } from "./memory-snapshot-store.ts";
import type { NotificationClaims } from "./notification-claims.ts";
import { DEFAULT_RETENTION_DAYS } from "./retention.ts";
import type { RollupStore } from "./rollup-store.ts";
import type { SloStateStore } from "./slo-state-store.ts";
import type { SnapshotStore } from "./snapshot-store.ts";

export interface HistoryStores {
  snapshots: SnapshotStore;
  auditRuns: AuditRunStore;
  rollups: RollupStore;
  notifications: NotificationClaims;
  sloStates: SloStateStore;
}

/** The memory backend; `snapshots` keeps its class (tests damage a snapshot through it: `corrupt`). */
export function memoryHistoryStores(): HistoryStores & { snapshots: MemorySnapshotStore } {
  const rollups = new MemoryRollups();
  return {
    snapshots: new MemorySnapshotStore(),
    auditRuns: new MemoryAuditRuns(rollups),
    rollups,
    notifications: new MemoryNotificationClaims(),
    sloStates: new MemorySloStates(),
  };
}

export interface DynamoDbHistoryOptions extends StoreLocation {
  client: DynamoDBDocumentClient;
  /** How long runs and rollups are kept (TTL), in days. */
  retentionDays?: number;
  /** Default: the system clock. */
  clock?: Clock;
}

/** The DynamoDB backend: one table (one `Table`: AWS errors translated once, one count of what was written). */
export function dynamoDbHistoryStores(options: DynamoDbHistoryOptions): HistoryStores & { stats: WriteStats } {
  const table = new Table(
    options.client,
    { tableName: options.tableName, region: options.region, endpoint: options.endpoint },
    { countWriteUnits: true },
  );
  const retentionDays = options.retentionDays ?? DEFAULT_RETENTION_DAYS;
  const rollups = new DynamoDbRollups(table, retentionDays);
  return {
    snapshots: new DynamoDbSnapshotStore(table),
    auditRuns: new DynamoDbAuditRuns(table, rollups, retentionDays, options.clock ?? systemClock),
    rollups,
    notifications: new DynamoDbNotificationClaims(table),
    sloStates: new DynamoDbSloStates(table),
    // Items and write units written so far by any of the five (the bench's figures).
    get stats() {
      return table.stats;
    },
  };
}
