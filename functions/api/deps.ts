import { openSnapshotStore } from "../../shared/snapshots/config.ts";
import type { SnapshotStore } from "../../shared/snapshots/snapshot-store.ts";
import type { SyncStateStore } from "../../shared/store/sync-state.ts";
import { openSyncStateStore } from "../../shared/store/sync-state-dynamodb.ts";
import { createLambdaRuntime, type RuntimeOverrides } from "../_shared/runtime.ts";
import { apiConfigFromEnv } from "./config.ts";
import type { ApiDeps } from "./types.ts";

/**
 * Everything the API needs, from the environment, built once per cold start on the shared Lambda runtime
 * (functions/_shared). Any invalid setting throws here with a message naming it, so the function fails at
 * init (visible in the deploy's first invocation) instead of per request. `overrides` lets the local server
 * and tests inject a store, connector, logger or metrics.
 */
export function apiDepsFromEnv(
  env: NodeJS.ProcessEnv,
  overrides: RuntimeOverrides & { snapshots?: SnapshotStore; syncState?: SyncStateStore } = {},
): ApiDeps {
  const config = apiConfigFromEnv(env);
  // One KubeReader for the warm process (in the runtime): its pools, limits and caches outlive each request.
  const runtime = createLambdaRuntime(config, overrides, {
    limits: { perStatus: config.settings.statusConcurrency, perCluster: config.settings.clusterMaxInFlight },
  });
  // The snapshots client opens lazily (no network at cold start); only the history routes use it.
  const snapshots = overrides.snapshots ?? openSnapshotStore(config.store, config.snapshots);
  const syncState = overrides.syncState ?? openSyncStateStore(config.store);
  const syncPolicy = (cluster: string) => config.registry.find((entry) => entry.name === cluster)?.sync;
  const history = {
    auditIntervalSeconds: config.snapshots.auditIntervalSeconds,
    retentionDays: config.snapshots.retentionDays,
  };
  return { ...runtime, settings: config.settings, snapshots, syncState, syncPolicy, history };
}
