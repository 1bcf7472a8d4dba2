/**
 * The chatops worker's and Teams webhook's dependencies (store, EKS connector,
 * settings) from the environment, built once per cold
 * start (a bad setting fails the init with a message naming it). `overrides`
 * lets `npm start` and the tests inject the store, connector, queue or secrets.
 */
import { loadClusterRegistry } from "../../shared/clusters/registry.ts";
import { createEksConnector } from "../../shared/eks/connector.ts";
import { systemClock } from "../../shared/ports.ts";
import { openReleaseStore, storeConfigFromEnv } from "../../shared/store/config.ts";
import { chatopsSettingsFromEnv } from "./config.ts";
import { chatopsLogger } from "./logger.ts";
import { secretReader } from "./secrets.ts";
import type { TeamsDeps } from "./teams.ts";
import type { ChatWorkerDeps } from "./worker.ts";

type Env = NodeJS.ProcessEnv;

function readerDeps(env: Env, overrides: Partial<ChatWorkerDeps>) {
  const log = overrides.logger ?? chatopsLogger(env);
  const clusters =
    overrides.clusters ?? createEksConnector({ registry: loadClusterRegistry(env), clock: systemClock, logger: log });
  const store = overrides.store ?? openReleaseStore(storeConfigFromEnv(env));
  return { store, clusters, clock: overrides.clock ?? systemClock, logger: log };
}

export function chatWorkerDepsFromEnv(env: Env, overrides: Partial<ChatWorkerDeps> = {}): ChatWorkerDeps {
  const settings = chatopsSettingsFromEnv(env);
  return {
    ...readerDeps(env, overrides),
    access: settings.access,
    allowHosts: settings.allowHosts,
    prefix: settings.prefix,
    apiBaseUrl: settings.apiBaseUrl,
    ...overrides,
  };
}

export function teamsDepsFromEnv(env: Env, overrides: Partial<TeamsDeps> = {}): TeamsDeps {
  const settings = chatopsSettingsFromEnv(env);
  return {
    ...readerDeps(env, overrides),
    access: settings.access,
    securityToken: secretReader(settings.teamsSecret),
    budgetMs: settings.teamsBudgetMs,
    apiBaseUrl: settings.apiBaseUrl,
    ...overrides,
  };
}
