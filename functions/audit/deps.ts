/**
 * The audit functions' dependencies, built once per cold start from the
 * environment. Kept small so it folds into functions/_shared when that lands.
 */
import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics, MetricUnit } from "@aws-lambda-powertools/metrics";
import type { ClusterConnector } from "../../shared/clusters/connector.ts";
import { createEksConnector } from "../../shared/eks/connector.ts";
import type { MetricsSink } from "../../shared/history/change-events.ts";
import { ClusterLimiter } from "../../shared/history/cluster-limiter.ts";
import { openSnapshotStore } from "../../shared/history/config.ts";
import { type SlackWebhook, slackWebhook } from "../../shared/history/slack-webhook.ts";
import type { SnapshotStore } from "../../shared/history/snapshot-store.ts";
import { type Clock, type Logger as LoggerPort, systemClock } from "../../shared/ports.ts";
import { createSqsClient } from "../../shared/queue/config.ts";
import { openReleaseStore } from "../../shared/store/config.ts";
import type { ReleaseStore } from "../../shared/store/release-store.ts";
import type { AuditDeps } from "../../shared/usecases/audit-release.ts";
import { type AuditConfig, auditConfigFromEnv } from "./config.ts";

export const AUDIT_SERVICE = "helm-status-audit";

export interface AuditRuntime extends AuditDeps {
  config: AuditConfig;
  /** Powertools Metrics; flushMetrics() publishes what was counted (nothing when nothing was). */
  powertoolsMetrics: Metrics;
  flushMetrics(): void;
}

export interface RuntimeOverrides {
  store?: ReleaseStore;
  snapshots?: SnapshotStore;
  clusters?: ClusterConnector;
  logger?: LoggerPort;
  clock?: Clock;
  slack?: SlackWebhook;
}

export function auditRuntimeFromEnv(
  env: NodeJS.ProcessEnv,
  options: { needQueueUrl?: boolean } = {},
  overrides: RuntimeOverrides = {},
): AuditRuntime {
  const config = auditConfigFromEnv(env, options);
  const powertools = new Logger({ serviceName: env.POWERTOOLS_SERVICE_NAME ?? AUDIT_SERVICE });
  const logger: LoggerPort = overrides.logger ?? {
    debug: (m, a) => powertools.debug(m, a ?? {}),
    info: (m, a) => powertools.info(m, a ?? {}),
    warn: (m, a) => powertools.warn(m, a ?? {}),
    error: (m, a) => powertools.error(m, a ?? {}),
  };
  const powertoolsMetrics = new Metrics({
    namespace: env.POWERTOOLS_METRICS_NAMESPACE ?? "HelmStatus",
    serviceName: AUDIT_SERVICE,
  });
  let pending = false;
  const metrics: MetricsSink = {
    count(name, value, dimensions) {
      if (!dimensions) {
        pending = true;
        powertoolsMetrics.addMetric(name, MetricUnit.Count, value);
        return;
      }
      const single = powertoolsMetrics.singleMetric();
      for (const [key, dimension] of Object.entries(dimensions)) single.addDimension(key, dimension);
      single.addMetric(name, MetricUnit.Count, value);
    },
  };
  const clock = overrides.clock ?? systemClock;
  const clusters = overrides.clusters ?? createEksConnector({ registry: config.registry, clock, logger });
  const store = overrides.store ?? openReleaseStore(config.store);
  const snapshots = overrides.snapshots ?? openSnapshotStore(config.store, config.snapshots);
  const slack =
    overrides.slack ??
    (config.settings.slackWebhook ? slackWebhook(config.settings.slackWebhook, { logger }) : undefined);
  const runtime: AuditRuntime = {
    config,
    powertoolsMetrics,
    flushMetrics() {
      if (!pending) return;
      pending = false;
      powertoolsMetrics.publishStoredMetrics();
    },
    store,
    snapshots,
    clusters,
    clock,
    logger,
    metrics,
    limiter: new ClusterLimiter(config.settings.clusterConcurrency),
    retentionDays: config.snapshots.retentionDays,
  };
  if (slack) runtime.slack = slack;
  if (config.settings.apiBaseUrl) runtime.apiBaseUrl = config.settings.apiBaseUrl;
  return runtime;
}

export function sqsClientFor(runtime: AuditRuntime) {
  return createSqsClient(runtime.config.queue);
}
