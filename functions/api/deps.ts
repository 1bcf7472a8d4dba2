import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics } from "@aws-lambda-powertools/metrics";
import type { ClusterConnector } from "../../shared/clusters/connector.ts";
import { createEksConnector } from "../../shared/eks/connector.ts";
import { createKubeReader, type KubeReader } from "../../shared/kube/reader.ts";
import { systemClock } from "../../shared/ports.ts";
import { openReleaseStore } from "../../shared/store/config.ts";
import type { ReleaseStore } from "../../shared/store/release-store.ts";
import { apiConfigFromEnv } from "./config.ts";
import type { ApiDeps, ApiLogger } from "./types.ts";

export const SERVICE_NAME = "helm-status-api";

/**
 * Everything the API needs, from the environment, built once per cold start. Any
 * invalid setting throws here with a message naming it, so the function fails
 * at init (visible in the deploy's first invocation) instead of per request.
 * `overrides` lets the local server and tests inject a store or connector.
 */
export function apiDepsFromEnv(
  env: NodeJS.ProcessEnv,
  overrides: Partial<Pick<ApiDeps, "store" | "clusters" | "kube" | "logger" | "metrics" | "clock">> = {},
): ApiDeps {
  const { store: storeConfig, registry, settings } = apiConfigFromEnv(env);
  const logger: ApiLogger =
    overrides.logger ??
    powertoolsLogger(
      new Logger({ serviceName: env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME, logLevel: logLevelFrom(env) }),
    );
  const metrics =
    overrides.metrics ??
    new Metrics({ namespace: env.POWERTOOLS_METRICS_NAMESPACE ?? "HelmStatus", serviceName: SERVICE_NAME });
  const clock = overrides.clock ?? systemClock;
  const clusters: ClusterConnector = overrides.clusters ?? createEksConnector({ registry, clock, logger });
  const store: ReleaseStore = overrides.store ?? openReleaseStore(storeConfig);
  // One reader for the warm process: its pools, limits and caches outlive each request.
  const kube: KubeReader =
    overrides.kube ??
    createKubeReader({
      connector: clusters,
      clock,
      limits: { perStatus: settings.statusConcurrency, perCluster: settings.clusterMaxInFlight },
    });
  return { store, clusters, kube, clock, logger, metrics, settings };
}

function logLevelFrom(env: NodeJS.ProcessEnv) {
  const level = (env.POWERTOOLS_LOG_LEVEL ?? env.LOG_LEVEL ?? "INFO").toUpperCase();
  return (["DEBUG", "INFO", "WARN", "ERROR", "SILENT"].includes(level) ? level : "INFO") as
    | "DEBUG"
    | "INFO"
    | "WARN"
    | "ERROR"
    | "SILENT";
}

/** Powertools' Logger behind the port's `(message, attributes)` shape. */
export function powertoolsLogger(logger: Logger): ApiLogger {
  return {
    debug: (message, attributes) => logger.debug(message, attributes ?? {}),
    info: (message, attributes) => logger.info(message, attributes ?? {}),
    warn: (message, attributes) => logger.warn(message, attributes ?? {}),
    error: (message, attributes) => logger.error(message, attributes ?? {}),
    appendKeys: (attributes) => logger.appendKeys(attributes),
    resetKeys: () => logger.resetKeys(),
  };
}
