import { openHistoryStores } from "../../shared/snapshots/config.ts";
import type { HistoryStores } from "../../shared/snapshots/history-stores.ts";
import { openSyncStateStore } from "../../shared/store/config.ts";
import type { SyncStateStore } from "../../shared/store/sync-state.ts";
import { FleetCache } from "../../shared/usecases/fleet.ts";
import type { AttributionStore } from "../../shared/who/attribution.ts";
import { openAttributionStore } from "../../shared/who/config.ts";
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
  overrides: RuntimeOverrides & {
    historyStores?: HistoryStores;
    syncState?: SyncStateStore;
    attributions?: AttributionStore;
  } = {},
): ApiDeps {
  const config = apiConfigFromEnv(env);
  // One KubeReader for the warm process (in the runtime): its pools, limits and caches outlive each request.
  const runtime = createLambdaRuntime(config, overrides, {
    limits: { perStatus: config.settings.statusConcurrency, perCluster: config.settings.clusterMaxInFlight },
  });
  // The snapshots table's client opens lazily (no network at cold start); only the history routes use it.
  const historyStores = overrides.historyStores ?? openHistoryStores(config.store, config.snapshots);
  const syncState = overrides.syncState ?? openSyncStateStore(config.store);
  // Who made each revision and write, kept beside the releases (docs/who.md): a store injected without its
  // attributions (tests) has none, so history and status then say nothing of who.
  // WHO_LOOKUP=off (read once, with the settings): nothing is kept, so nothing is read (no Query per status).
  const attributions =
    overrides.attributions ??
    (overrides.store || !config.settings.whoLookup ? undefined : openAttributionStore(config.store));
  const syncPolicy = (cluster: string) => config.registry.find((entry) => entry.name === cluster)?.sync;
  const history = {
    auditIntervalSeconds: config.snapshots.auditIntervalSeconds,
    retentionDays: config.snapshots.retentionDays,
  };
  // The dashboard's fleet, joined once and kept 30 s by the warm function (filters and pages then read nothing).
  const fleetCache = new FleetCache();
  return {
    ...runtime,
    settings: config.settings,
    dashboard: config.dashboard,
    historyStores,
    syncState,
    syncPolicy,
    history,
    fleetCache,
    ...(attributions ? { attributions } : {}),
  };
}
