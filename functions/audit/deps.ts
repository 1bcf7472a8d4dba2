/**
 * The audit functions' runtime: the shared Lambda runtime (functions/_shared: store,
 * registry + connector, logger, metrics) plus the snapshot store, the per-cluster
 * limiter and the optional Slack webhook, built once per cold start.
 */
import { MetricUnit } from "@aws-lambda-powertools/metrics";
import type { MetricsSink } from "../../shared/audit/change-events.ts";
import { ClusterLimiter } from "../../shared/audit/cluster-limiter.ts";
import { LatestSnapshotCache } from "../../shared/audit/latest-cache.ts";
import { type SlackWebhook, slackWebhook } from "../../shared/notify/slack-webhook.ts";
import { createSqsClient } from "../../shared/queue/config.ts";
import { openHistoryStores } from "../../shared/snapshots/config.ts";
import type { HistoryStores } from "../../shared/snapshots/history-stores.ts";
import type { AuditDeps } from "../../shared/usecases/audit-release.ts";
import type { AttributionStore } from "../../shared/who/attribution.ts";
import { openAttributionStore } from "../../shared/who/config.ts";
import { whoLookupFromEnv } from "../_shared/config.ts";
import { createLambdaRuntime, type LambdaRuntime, type RuntimeOverrides } from "../_shared/runtime.ts";
import { type AuditConfig, auditConfigFromEnv } from "./config.ts";

/** The shared runtime's fields (one shape for every function: clock, logger, telemetry, ...), and the audit's. */
export interface AuditRuntime extends AuditDeps, Omit<LambdaRuntime, "config"> {
  config: AuditConfig;
}

export interface AuditOverrides extends RuntimeOverrides {
  /** Where the drift writes the audits see are enqueued for attribution (default: the releases table's, by STORE_DRIVER). */
  attributions?: AttributionStore;
  /** The status history's stores (default: SNAPSHOTS_TABLE's, by STORE_DRIVER). */
  historyStores?: HistoryStores;
  slack?: SlackWebhook;
}

/**
 * Prepared (parsed, redacted) manifests the worker keeps: it audits the same deployed revisions every run, and
 * at the reader's default of 64 a fleet of hundreds re-parsed every manifest every run (a quarter of the worker's
 * CPU in the bench). The reader's bound on their total size (32 Mi characters) still caps the memory.
 */
export const AUDIT_MANIFEST_ENTRIES = 5_000;

export function auditRuntimeFromEnv(
  env: NodeJS.ProcessEnv,
  options: { needQueueUrl?: boolean } = {},
  overrides: AuditOverrides = {},
): AuditRuntime {
  const config = auditConfigFromEnv(env, options);
  const lambda = createLambdaRuntime(config, overrides, { cache: { manifestEntries: AUDIT_MANIFEST_ENTRIES } });
  const { logger } = lambda;
  const metrics: MetricsSink = {
    count(name, value, dimensions) {
      if (!dimensions) {
        lambda.telemetry.metrics.addMetric(name, MetricUnit.Count, value);
        return;
      }
      // A metric with its own dimensions is published at once (Powertools' single metric).
      const single = lambda.telemetry.metrics.singleMetric();
      for (const [key, dimension] of Object.entries(dimensions)) single.addDimension(key, dimension);
      single.addMetric(name, MetricUnit.Count, value);
    },
  };
  const slack =
    overrides.slack ??
    (config.settings.slackWebhook ? slackWebhook(config.settings.slackWebhook, { logger }) : undefined);
  const history = overrides.historyStores ?? openHistoryStores(config.store, config.snapshots);
  const runtime: AuditRuntime = {
    ...lambda,
    config,
    snapshots: history.snapshots,
    auditRuns: history.auditRuns,
    notifications: history.notifications,
    sloStates: history.sloStates,
    metrics,
    limiter: new ClusterLimiter(config.settings.clusterConcurrency),
    latestCache: new LatestSnapshotCache(),
    retentionDays: config.snapshots.retentionDays,
    auditIntervalSeconds: config.snapshots.auditIntervalSeconds,
  };
  if (slack) runtime.slack = slack;
  // Who made each drift write (docs/who.md): enqueued here, looked up by the sync worker; off with WHO_LOOKUP=off.
  if (whoLookupFromEnv(env)) runtime.attributions = overrides.attributions ?? openAttributionStore(config.store);
  if (config.settings.apiBaseUrl) runtime.apiBaseUrl = config.settings.apiBaseUrl;
  return runtime;
}

/** A gauge published with the next flush (the planner's AuditLag). */
export function recordSeconds(runtime: AuditRuntime, name: string, seconds: number): void {
  runtime.telemetry.metrics.addMetric(name, MetricUnit.Seconds, seconds);
}

export function sqsClientFor(runtime: AuditRuntime) {
  return createSqsClient(runtime.config.queue);
}
