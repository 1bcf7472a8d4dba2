/**
 * The sync functions' configuration and runtime (docs/sync.md "Scheduled"): the shared Lambda runtime (store,
 * registry + connector, KubeReader, telemetry), the sync state in the releases table, and the sync queue.
 */
import type { SyncPolicy } from "../../shared/clusters/connector.ts";
import { openSyncStateStore } from "../../shared/store/config.ts";
import type { SyncStateStore } from "../../shared/store/sync-state.ts";
import {
  type Env,
  functionConfigFromEnv,
  parseEnv,
  type QueueFunctionConfig,
  queueConfigReaders,
  wholeNumber,
} from "../_shared/config.ts";
import { createLambdaRuntime, type LambdaRuntime, type RuntimeOverrides } from "../_shared/runtime.ts";

export const SYNC_SERVICE_NAME = "helm-status-sync";

/** SYNC_QUEUE_URL is read by the scheduler only. */
export interface SyncConfig extends QueueFunctionConfig {
  settings: {
    /** SYNC_DEADLINE_MARGIN_MS: kept back from the Lambda's remaining time for the last writes (default 10000). */
    deadlineMarginMs: number;
    /** SYNC_PAGE_SIZE: objects per LIST page (default 500). */
    pageSize: number;
    /** SYNC_LEASE_SECONDS: how long a run holds its cluster without renewing (default 60; renewed every page). */
    leaseMs: number;
  };
}

export function syncConfigFromEnv(env: Env, options: { needQueueUrl?: boolean } = {}): SyncConfig {
  return functionConfigFromEnv("sync", env, SYNC_SERVICE_NAME, {
    ...queueConfigReaders(env, "SYNC_QUEUE_URL", options.needQueueUrl),
    settings: () => {
      const numbers = parseEnv(env, {
        SYNC_DEADLINE_MARGIN_MS: wholeNumber(10_000, 0, 600_000),
        SYNC_PAGE_SIZE: wholeNumber(500, 1, 5_000),
        SYNC_LEASE_SECONDS: wholeNumber(60, 1, 900),
      });
      return {
        deadlineMarginMs: numbers.SYNC_DEADLINE_MARGIN_MS,
        pageSize: numbers.SYNC_PAGE_SIZE,
        leaseMs: numbers.SYNC_LEASE_SECONDS * 1000,
      };
    },
  });
}

/** The shared runtime's fields (one shape for every function: clock, logger, telemetry, ...), and the sync's. */
export interface SyncRuntime extends Omit<LambdaRuntime, "config"> {
  config: SyncConfig;
  syncState: SyncStateStore;
  /** The registry's `sync` switch of a cluster. */
  policy(cluster: string): SyncPolicy | undefined;
}

export function syncRuntimeFromEnv(
  env: NodeJS.ProcessEnv,
  options: { needQueueUrl?: boolean } = {},
  overrides: RuntimeOverrides & { syncState?: SyncStateStore } = {},
): SyncRuntime {
  const config = syncConfigFromEnv(env, options);
  // A sync reads each storage object's manifest once: no prepared-manifest cache.
  const lambda = createLambdaRuntime(config, overrides, { cache: { manifestEntries: 0 } });
  return {
    ...lambda,
    config,
    syncState: overrides.syncState ?? openSyncStateStore(config.store),
    policy: (cluster) => config.registry.find((entry) => entry.name === cluster)?.sync,
  };
}
