/**
 * The audit functions' settings, read once at cold start; every problem is
 * reported at once, each named by its variable (docs/history.md lists them).
 */
import { type SnapshotsConfig, scheduleSeconds, snapshotsConfigFromEnv } from "../../shared/history/config.ts";

export { scheduleSeconds };

import { HistoryConfigError } from "../../shared/history/errors.ts";
import { checkWebhookUrl } from "../../shared/history/slack-webhook.ts";
import { type QueueClientConfig, queueClientConfigFromEnv, queueUrlFromEnv } from "../../shared/queue/config.ts";
import { type Env, type RuntimeConfig, readConfig, runtimeConfigReaders } from "../_shared/config.ts";

export interface AuditSettings {
  /** AUDIT_CLUSTER_CONCURRENCY: releases audited at once per cluster (1..64, default 4). */
  clusterConcurrency: number;
  /** AUDIT_RELEASES_PER_MESSAGE (1..100, default 10). */
  releasesPerMessage: number;
  /** AUDIT_SCHEDULE's period in seconds (rate(5 minutes) -> 300): the run-id slot. */
  slotSeconds: number;
  /** AUDIT_SLACK_WEBHOOK_URL, checked against the allowed hosts. */
  slackWebhook?: URL;
  /** AUDIT_API_URL: base URL of the API for links in notifications. */
  apiBaseUrl?: string;
  /** Time kept back from the Lambda's remaining time for writing snapshots (AUDIT_DEADLINE_MARGIN_MS, default 5000). */
  deadlineMarginMs: number;
}

export const AUDIT_SERVICE_NAME = "helm-status-audit";

/** The common runtime sections (store, registry, telemetry) plus the audit's own. */
export interface AuditConfig extends RuntimeConfig {
  queue: QueueClientConfig;
  /** AUDIT_QUEUE_URL: required by the planner only. */
  queueUrl?: string;
  settings: AuditSettings;
  snapshots: SnapshotsConfig;
}

export function auditConfigFromEnv(env: Env, options: { needQueueUrl?: boolean } = {}): AuditConfig {
  const config = readConfig("audit", {
    ...runtimeConfigReaders(env, AUDIT_SERVICE_NAME),
    queue: () => queueClientConfigFromEnv(env),
    queueUrl: () => (options.needQueueUrl ? queueUrlFromEnv(env, "AUDIT_QUEUE_URL") : undefined),
    settings: () => auditSettingsFromEnv(env),
    snapshots: () => snapshotsConfigFromEnv(env),
  });
  return config;
}

export function auditSettingsFromEnv(env: Env): AuditSettings {
  const problems: string[] = [];
  const int = (key: string, fallback: number, min: number, max: number): number => {
    const raw = env[key]?.trim();
    if (!raw) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${key}=${JSON.stringify(raw)} must be a whole number in ${min}..${max}`);
      return fallback;
    }
    return Number(raw);
  };
  let slotSeconds = 300;
  try {
    slotSeconds = scheduleSeconds(env.AUDIT_SCHEDULE?.trim() || "rate(5 minutes)");
  } catch {
    // Reported once, by the snapshots section (snapshotsConfigFromEnv reads AUDIT_SCHEDULE too).
  }
  let slackWebhook: URL | undefined;
  const webhook = env.AUDIT_SLACK_WEBHOOK_URL?.trim();
  if (webhook) {
    try {
      slackWebhook = checkWebhookUrl(webhook, env.AUDIT_SLACK_WEBHOOK_ALLOW_HOSTS);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  const apiBaseUrl = env.AUDIT_API_URL?.trim() || undefined;
  if (apiBaseUrl && !/^https?:\/\/[^\s/]+(\/\S*)?$/.test(apiBaseUrl)) {
    problems.push(`AUDIT_API_URL ${JSON.stringify(apiBaseUrl.slice(0, 200))} is not an http(s) URL`);
  }
  const settings: AuditSettings = {
    clusterConcurrency: int("AUDIT_CLUSTER_CONCURRENCY", 4, 1, 64),
    releasesPerMessage: int("AUDIT_RELEASES_PER_MESSAGE", 10, 1, 100),
    slotSeconds,
    deadlineMarginMs: int("AUDIT_DEADLINE_MARGIN_MS", 5000, 0, 120_000),
  };
  if (slackWebhook) settings.slackWebhook = slackWebhook;
  if (apiBaseUrl) settings.apiBaseUrl = apiBaseUrl;
  if (problems.length > 0) throw new HistoryConfigError(problems.join("; "));
  return settings;
}

/** The run id of the schedule slot `time` falls in (a retried planner for the slot gets the same id). */
export function slotStart(time: Date, slotSeconds: number): Date {
  const ms = slotSeconds * 1000;
  return new Date(Math.floor(time.getTime() / ms) * ms);
}
