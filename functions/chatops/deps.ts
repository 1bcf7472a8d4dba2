/**
 * The chatops functions' dependencies from the environment, built once per cold
 * start (a bad setting fails the init with a message naming it). `overrides`
 * lets `npm start` and the tests inject the store, connector, queue or secrets.
 */
import { Logger } from "@aws-lambda-powertools/logger";
import { loadClusterRegistry } from "../../shared/clusters/registry.ts";
import { createEksConnector } from "../../shared/eks/connector.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { systemClock } from "../../shared/ports.ts";
import { createSqsClient, queueClientConfigFromEnv, queueUrlFromEnv } from "../../shared/queue/config.ts";
import { openReleaseStore, storeConfigFromEnv } from "../../shared/store/config.ts";
import { loggerPort } from "../_shared/telemetry.ts";
import { chatopsSettingsFromEnv } from "./config.ts";
import { sqsChatJobQueue } from "./queue.ts";
import { secretReader } from "./secrets.ts";
import type { SlackIngressDeps } from "./slack.ts";
import type { TeamsDeps } from "./teams.ts";
import type { ChatWorkerDeps } from "./worker.ts";

export const CHATOPS_SERVICE = "helm-status-chatops";
type Env = NodeJS.ProcessEnv;

function logger(env: Env) {
  const level = (env.POWERTOOLS_LOG_LEVEL ?? "INFO").toUpperCase();
  return loggerPort(
    new Logger({
      serviceName: env.POWERTOOLS_SERVICE_NAME ?? CHATOPS_SERVICE,
      logLevel: (["DEBUG", "INFO", "WARN", "ERROR", "SILENT"].includes(level) ? level : "INFO") as "INFO",
    }),
  );
}

export function slackIngressDepsFromEnv(env: Env, overrides: Partial<SlackIngressDeps> = {}): SlackIngressDeps {
  const settings = chatopsSettingsFromEnv(env);
  const registry = loadClusterRegistry(env);
  const names = registry.map((entry) => entry.name);
  return {
    access: settings.access,
    allowHosts: settings.allowHosts,
    signingSecret: secretReader(settings.slackSecret),
    queue:
      overrides.queue ??
      sqsChatJobQueue(createSqsClient(queueClientConfigFromEnv(env)), queueUrlFromEnv(env, "CHATOPS_QUEUE_URL")),
    clusterNames: () => names,
    logger: logger(env),
    prefix: settings.prefix,
    apiBaseUrl: settings.apiBaseUrl,
    ...overrides,
  };
}

function readerDeps(env: Env, overrides: Partial<ChatWorkerDeps>) {
  const log = overrides.logger ?? logger(env);
  const clusters =
    overrides.clusters ?? createEksConnector({ registry: loadClusterRegistry(env), clock: systemClock, logger: log });
  const store = overrides.store ?? openReleaseStore(storeConfigFromEnv(env));
  const clock = overrides.clock ?? systemClock;
  // One KubeReader per warm function (pools, per-cluster limits, caches), like the API's.
  const kube = overrides.kube ?? createKubeReader({ connector: clusters, clock });
  return { store, clusters, clock, logger: log, kube };
}

export function chatWorkerDepsFromEnv(env: Env, overrides: Partial<ChatWorkerDeps> = {}): ChatWorkerDeps {
  const settings = chatopsSettingsFromEnv(env);
  const base = readerDeps(env, overrides);
  return {
    ...base,
    access: settings.access,
    allowHosts: settings.allowHosts,
    prefix: settings.prefix,
    apiBaseUrl: settings.apiBaseUrl,
    ...overrides,
    kube: base.kube,
  };
}

export function teamsDepsFromEnv(env: Env, overrides: Partial<TeamsDeps> = {}): TeamsDeps {
  const settings = chatopsSettingsFromEnv(env);
  const base = readerDeps(env, overrides);
  return {
    ...base,
    access: settings.access,
    securityToken: secretReader(settings.teamsSecret),
    budgetMs: settings.teamsBudgetMs,
    apiBaseUrl: settings.apiBaseUrl,
    ...overrides,
    kube: base.kube,
  };
}
