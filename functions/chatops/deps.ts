/**
 * The chatops worker's and Teams webhook's dependencies, on the product's one
 * Lambda runtime (functions/_shared: store, registry + EKS connector, logger,
 * metrics), plus the chatops settings; built once per cold start, every bad
 * setting reported at once. `overrides` lets `npm start` and the tests inject
 * the store, connector or logger.
 */

import { replayLedgerFor } from "../../shared/chatops/replay-ledger.ts";
import type { ClusterConnector } from "../../shared/clusters/connector.ts";
import type { Logger } from "../../shared/ports.ts";
import { openHistoryStores, snapshotsConfigFromEnv } from "../../shared/snapshots/config.ts";
import type { HistoryStores } from "../../shared/snapshots/history-stores.ts";
import type { ReleaseStore } from "../../shared/store/release-store.ts";
import type { AttributionStore } from "../../shared/who/attribution.ts";
import { openAttributionStore } from "../../shared/who/config.ts";
import { type Env, functionConfigFromEnv, whoLookupFromEnv } from "../_shared/config.ts";
import { createLambdaRuntime } from "../_shared/runtime.ts";
import { chatopsSettingsFromEnv } from "./config.ts";
import { CHATOPS_SERVICE } from "./logger.ts";
import { secretReader } from "./secrets.ts";
import type { ChatWorkerDeps, TeamsDeps } from "./types.ts";

export interface ChatReaderOverrides {
  store?: ReleaseStore;
  clusters?: ClusterConnector;
  /** The status history's snapshots and rollups (default: SNAPSHOTS_TABLE's, when set). */
  historyStores?: Pick<HistoryStores, "snapshots" | "rollups">;
  /** The use cases' logger port (the runtime's Powertools logger otherwise). */
  logger?: Logger;
  /** Who made each revision and write (default: the releases table's; none when `store` is injected without it). */
  attributions?: AttributionStore;
}

function runtimeOf(env: Env, what: string, overrides: ChatReaderOverrides) {
  const config = functionConfigFromEnv(what, env, CHATOPS_SERVICE, {
    chatops: () => chatopsSettingsFromEnv(env),
    snapshots: () => (env.SNAPSHOTS_TABLE?.trim() ? snapshotsConfigFromEnv(env) : undefined),
  });
  const runtime = createLambdaRuntime(config, {
    store: overrides.store,
    clusters: overrides.clusters,
    logger: overrides.logger,
  });
  // The snapshots table's client opens lazily (no network at cold start); only fleet, timeline and reliability read it.
  const historyStores =
    overrides.historyStores ?? (config.snapshots ? openHistoryStores(config.store, config.snapshots) : undefined);
  // WHO_LOOKUP=off: nothing is kept, so nothing is read.
  const attributions =
    overrides.attributions ??
    (overrides.store || !whoLookupFromEnv(env) ? undefined : openAttributionStore(config.store));
  const readers = {
    store: runtime.store,
    clusters: runtime.clusters,
    clock: runtime.clock,
    // The runtime's KubeReader (pools, per-cluster limits, caches) for `status`.
    kube: runtime.kube,
    logger: runtime.logger,
    telemetry: runtime.telemetry,
    ...(historyStores ? { historyStores } : {}),
    ...(attributions ? { attributions } : {}),
    ...(config.snapshots
      ? {
          history: {
            auditIntervalSeconds: config.snapshots.auditIntervalSeconds,
            retentionDays: config.snapshots.retentionDays,
          },
        }
      : {}),
  };
  return { settings: config.chatops, readers, store: config.store };
}

export function chatWorkerDepsFromEnv(env: Env, overrides: ChatReaderOverrides = {}): ChatWorkerDeps {
  const { settings, readers } = runtimeOf(env, "chatops worker", overrides);
  return {
    ...readers,
    access: settings.access,
    allowHosts: settings.allowHosts,
    prefix: settings.prefix,
    apiBaseUrl: settings.apiBaseUrl,
  };
}

export function teamsDepsFromEnv(env: Env, overrides: ChatReaderOverrides = {}): TeamsDeps {
  const { settings, readers, store } = runtimeOf(env, "chatops Teams webhook", overrides);
  return {
    ...readers,
    // Replays refused across instances: a conditional put on the releases table (shared/chatops/replay-ledger.ts).
    replays: replayLedgerFor(store),
    access: settings.access,
    securityToken: secretReader(settings.teamsSecret),
    budgetMs: settings.teamsBudgetMs,
    apiBaseUrl: settings.apiBaseUrl,
  };
}
