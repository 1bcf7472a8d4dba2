/**
 * The sync functions' configuration and runtime (docs/sync.md "Scheduled"): the shared Lambda runtime (store,
 * registry + connector, KubeReader, telemetry), the sync state in the releases table, and the sync queue.
 */

import { awsConnectionFromEnv } from "../../shared/aws/connection.ts";
import type { SyncPolicy } from "../../shared/clusters/connector.ts";
import { openSyncStateStore } from "../../shared/store/config.ts";
import type { SyncStateStore } from "../../shared/store/sync-state.ts";
import type { AttributionStore, AuditLogLookup } from "../../shared/who/attribution.ts";
import { createCloudWatchAuditLogLookup } from "../../shared/who/audit-log-lookup.ts";
import { openAttributionStore } from "../../shared/who/config.ts";
import {
  type Env,
  functionConfigFromEnv,
  LambdaConfigError,
  parseEnv,
  type QueueFunctionConfig,
  queueConfigReaders,
  whoLookupFromEnv,
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
    /** WHO_LOOKUP: look up who made each new revision and drift write after each sync (default on; docs/who.md). */
    whoLookup: boolean;
    /** WHO_RETRY_MINUTES: how long after a write its audit event may still arrive (default 30). */
    whoRetryWindowMs: number;
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
        WHO_RETRY_MINUTES: wholeNumber(30, 1, 1440),
      });
      return {
        deadlineMarginMs: numbers.SYNC_DEADLINE_MARGIN_MS,
        pageSize: numbers.SYNC_PAGE_SIZE,
        leaseMs: numbers.SYNC_LEASE_SECONDS * 1000,
        whoLookup: whoLookupFromEnv(env),
        whoRetryWindowMs: numbers.WHO_RETRY_MINUTES * 60_000,
      };
    },
  });
}

/** The shared runtime's fields (one shape for every function: clock, logger, telemetry, ...), and the sync's. */
export interface SyncRuntime extends Omit<LambdaRuntime, "config"> {
  config: SyncConfig;
  syncState: SyncStateStore;
  /** Where new revisions are enqueued for attribution and the worker settles them (the releases table). */
  attributions: AttributionStore;
  /** The clusters' audit logs (CloudWatch Logs); absent when WHO_LOOKUP=off: nothing is enqueued nor looked up. */
  auditLog?: AuditLogLookup;
  /** The registry's `sync` switch of a cluster. */
  policy(cluster: string): SyncPolicy | undefined;
}

export function syncRuntimeFromEnv(
  env: NodeJS.ProcessEnv,
  options: { needQueueUrl?: boolean } = {},
  overrides: RuntimeOverrides & {
    syncState?: SyncStateStore;
    attributions?: AttributionStore;
    auditLog?: AuditLogLookup;
  } = {},
): SyncRuntime {
  const config = syncConfigFromEnv(env, options);
  // A sync reads each storage object's manifest once: no prepared-manifest cache.
  const lambda = createLambdaRuntime(config, overrides, { cache: { manifestEntries: 0 } });
  const runtime: SyncRuntime = {
    ...lambda,
    config,
    syncState: overrides.syncState ?? openSyncStateStore(config.store),
    attributions: overrides.attributions ?? openAttributionStore(config.store),
    policy: (cluster) => config.registry.find((entry) => entry.name === cluster)?.sync,
  };
  if (config.settings.whoLookup) {
    runtime.auditLog =
      overrides.auditLog ??
      createCloudWatchAuditLogLookup({
        registry: config.registry,
        connection: awsConnectionFromEnv(env, "logs", (message) => new LambdaConfigError(message)),
        clock: lambda.clock,
        logger: lambda.logger,
      });
  }
  return runtime;
}
