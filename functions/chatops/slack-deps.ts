/**
 * The Slack ingress's dependencies from the environment, at cold start. Kept
 * apart from deps.ts on purpose: the ingress must answer within 3 s, so its
 * bundle holds no store and no Kubernetes client (it reads neither).
 */
import { loadClusterRegistry } from "../../shared/clusters/registry.ts";
import { createSqsClient, queueClientConfigFromEnv, queueUrlFromEnv } from "../../shared/queue/config.ts";
import { chatopsSettingsFromEnv } from "./config.ts";
import { chatopsLogger } from "./logger.ts";
import { sqsChatJobQueue } from "./queue.ts";
import { secretReader } from "./secrets.ts";
import type { SlackIngressDeps } from "./slack.ts";

export function slackIngressDepsFromEnv(
  env: NodeJS.ProcessEnv,
  overrides: Partial<SlackIngressDeps> = {},
): SlackIngressDeps {
  const settings = chatopsSettingsFromEnv(env);
  const names = loadClusterRegistry(env).map((entry) => entry.name);
  return {
    access: settings.access,
    allowHosts: settings.allowHosts,
    signingSecret: secretReader(settings.slackSecret),
    queue:
      overrides.queue ??
      sqsChatJobQueue(createSqsClient(queueClientConfigFromEnv(env)), queueUrlFromEnv(env, "CHATOPS_QUEUE_URL")),
    clusterNames: () => names,
    logger: overrides.logger ?? chatopsLogger(env),
    prefix: settings.prefix,
    apiBaseUrl: settings.apiBaseUrl,
    ...overrides,
  };
}
