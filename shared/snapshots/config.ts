/**
 * Where the snapshots live (SNAPSHOTS_TABLE), for how long (SNAPSHOT_RETENTION_DAYS) and how often the audits
 * look (AUDIT_SCHEDULE: the reliability report's gap threshold), read once; and the one place that opens the
 * history's stores for a configuration.
 */
import { createDocumentClient, STORE_DRIVERS, type StoreConfig } from "../store/config.ts";
import { StoreConfigError } from "../store/errors.ts";
import { HistoryConfigError } from "./errors.ts";
import { dynamoDbHistoryStores, type HistoryStores, memoryHistoryStores } from "./history-stores.ts";
import { DEFAULT_AUDIT_INTERVAL_SECONDS } from "./reliability.ts";
import { DEFAULT_RETENTION_DAYS } from "./retention.ts";
import { DEFAULT_SNAPSHOTS_TABLE } from "./table-schema.ts";

export interface SnapshotsConfig {
  tableName: string;
  retentionDays: number;
  /** AUDIT_SCHEDULE's period in seconds (rate(5 minutes) -> 300). */
  auditIntervalSeconds: number;
}

export function snapshotsConfigFromEnv(env: Record<string, string | undefined>): SnapshotsConfig {
  const problems: string[] = [];
  const tableName = env.SNAPSHOTS_TABLE?.trim() || DEFAULT_SNAPSHOTS_TABLE;
  if (!/^[A-Za-z0-9_.-]{3,255}$/.test(tableName)) {
    problems.push(`SNAPSHOTS_TABLE ${JSON.stringify(tableName.slice(0, 300))} is not a DynamoDB table name`);
  }
  const rawDays = env.SNAPSHOT_RETENTION_DAYS?.trim();
  let retentionDays = DEFAULT_RETENTION_DAYS;
  if (rawDays) {
    if (!/^\d{1,4}$/.test(rawDays) || Number(rawDays) < 1 || Number(rawDays) > 3650) {
      problems.push(
        `SNAPSHOT_RETENTION_DAYS=${JSON.stringify(rawDays.slice(0, 40))} must be a whole number of days in 1..3650`,
      );
    } else {
      retentionDays = Number(rawDays);
    }
  }
  let auditIntervalSeconds = DEFAULT_AUDIT_INTERVAL_SECONDS;
  try {
    auditIntervalSeconds = scheduleSeconds(env.AUDIT_SCHEDULE?.trim() || "rate(5 minutes)");
  } catch (error) {
    problems.push((error as Error).message);
  }
  if (problems.length > 0) throw new HistoryConfigError(problems.join("; "));
  return { tableName, retentionDays, auditIntervalSeconds };
}

const UNIT_SECONDS: Record<string, number> = {
  minute: 60,
  minutes: 60,
  hour: 3600,
  hours: 3600,
  day: 86_400,
  days: 86_400,
};

/** EventBridge `rate(N unit)` -> seconds. A cron schedule has no fixed period: use AUDIT_SCHEDULE as rate(). */
export function scheduleSeconds(schedule: string): number {
  const m = /^rate\((\d{1,6}) (minute|minutes|hour|hours|day|days)\)$/.exec(schedule);
  if (!m || Number(m[1]) < 1) {
    throw new HistoryConfigError(
      `AUDIT_SCHEDULE ${JSON.stringify(schedule.slice(0, 100))} is not an EventBridge rate expression such as "rate(5 minutes)"`,
    );
  }
  return Number(m[1]) * UNIT_SECONDS[m[2]];
}

/**
 * The history's stores for a configuration, by the same STORE_DRIVER as the releases store (one switch for all):
 * DynamoDB (the snapshots table beside the releases table's endpoint), or the process's memory.
 */
export function openHistoryStores(store: StoreConfig, snapshots: SnapshotsConfig): HistoryStores {
  const driver: string = store.driver ?? "dynamodb";
  switch (driver) {
    case "dynamodb":
      return dynamoDbHistoryStores({
        client: createDocumentClient(store),
        tableName: snapshots.tableName,
        region: store.region,
        endpoint: store.endpoint,
        retentionDays: snapshots.retentionDays,
      });
    case "memory":
      return memoryHistoryStores();
    default:
      throw new StoreConfigError(
        `store driver ${JSON.stringify(driver)} is not a store driver: one of ${STORE_DRIVERS.join(", ")}`,
      );
  }
}
