/**
 * The Slack webhook's dependencies from the environment, at cold start. Kept
 * apart from deps.ts on purpose: the webhook must answer within 3 s, so its
 * bundle holds no store and no Kubernetes client (it reads neither), only the
 * registry's names, the chatops settings, the queue and telemetry.
 */
import { MetricUnit } from "@aws-lambda-powertools/metrics";
import { replayLedgerFor } from "../../shared/chatops/replay-ledger.ts";
import { loadClusterRegistry } from "../../shared/clusters/registry.ts";
import { createSqsClient, queueClientConfigFromEnv, queueUrlFromEnv } from "../../shared/queue/config.ts";
import { storeConfigFromEnv } from "../../shared/store/config.ts";
import { readConfig, telemetryConfigFromEnv } from "../_shared/config.ts";
import type { Telemetry } from "../_shared/shell.ts";
import { createLogger, createMetrics, loggerPort } from "../_shared/telemetry.ts";
import { chatopsSettingsFromEnv } from "./config.ts";
import { CHATOPS_SERVICE } from "./logger.ts";
import { sqsChatJobQueue } from "./queue.ts";
import { secretReader } from "./secrets.ts";
import type { SlackIngressDeps } from "./types.ts";

export function slackIngressDepsFromEnv(
  env: NodeJS.ProcessEnv,
  overrides: Partial<SlackIngressDeps> = {},
): SlackIngressDeps {
  const config = readConfig("chatops Slack webhook", {
    chatops: () => chatopsSettingsFromEnv(env),
    registry: () => loadClusterRegistry(env),
    // Only for the replay ledger's conditional put (no store client is opened otherwise).
    store: () => storeConfigFromEnv(env),
    telemetry: () => telemetryConfigFromEnv(env, CHATOPS_SERVICE),
    queue: () =>
      overrides.queue
        ? undefined
        : { client: queueClientConfigFromEnv(env), url: queueUrlFromEnv(env, "CHATOPS_QUEUE_URL") },
  });
  const { chatops: settings } = config;
  const names = config.registry.map((entry) => entry.name);
  const telemetry: Telemetry = overrides.telemetry ?? {
    logger: createLogger(config.telemetry),
    metrics: createMetrics(config.telemetry),
  };
  return {
    access: settings.access,
    allowHosts: settings.allowHosts,
    signingSecret: secretReader(settings.slackSecret),
    queue: overrides.queue ?? sqsChatJobQueue(createSqsClient(config.queue!.client), config.queue!.url),
    clusterNames: () => names,
    telemetry,
    logger: loggerPort(telemetry.logger),
    // One EMF record per acknowledgement, published at once and dimensioned by service only (the AckLatency
    // alarm's exact dimension set, without the request's route and outcome).
    onAck: (latencyMs) => telemetry.metrics.singleMetric().addMetric("AckLatency", MetricUnit.Milliseconds, latencyMs),
    // Replays refused across instances: a conditional put on the releases table (shared/chatops/replay-ledger.ts).
    replays: replayLedgerFor(config.store),
    prefix: settings.prefix,
    snapshots: settings.snapshots,
    apiBaseUrl: settings.apiBaseUrl,
    ...overrides,
  };
}
