/**
 * The audit functions' settings, read once at cold start; every problem is
 * reported at once, each named by its variable (docs/history.md lists them).
 */

import { checkWebhookUrl } from "../../shared/notify/slack-webhook.ts";
import { type SnapshotsConfig, scheduleSeconds, snapshotsConfigFromEnv } from "../../shared/snapshots/config.ts";

export { scheduleSeconds };

import {
  type Env,
  functionConfigFromEnv,
  httpBaseUrl,
  parseEnv,
  type QueueFunctionConfig,
  queueConfigReaders,
  readSections,
  wholeNumber,
} from "../_shared/config.ts";

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

/** The common runtime and queue sections plus the audit's own; AUDIT_QUEUE_URL is read by the planner only. */
export interface AuditConfig extends QueueFunctionConfig {
  settings: AuditSettings;
  snapshots: SnapshotsConfig;
}

export function auditConfigFromEnv(env: Env, options: { needQueueUrl?: boolean } = {}): AuditConfig {
  const config = functionConfigFromEnv("audit", env, AUDIT_SERVICE_NAME, {
    ...queueConfigReaders(env, "AUDIT_QUEUE_URL", options.needQueueUrl),
    settings: () => auditSettingsFromEnv(env),
    snapshots: () => snapshotsConfigFromEnv(env),
  });
  return config;
}

/** The audit's own settings, every problem at once (one section of `auditConfigFromEnv`). */
export function auditSettingsFromEnv(env: Env): AuditSettings {
  const { numbers, slotSeconds, slackWebhook } = readSections({
    numbers: () =>
      parseEnv(env, {
        AUDIT_CLUSTER_CONCURRENCY: wholeNumber(4, 1, 64),
        AUDIT_RELEASES_PER_MESSAGE: wholeNumber(10, 1, 100),
        AUDIT_DEADLINE_MARGIN_MS: wholeNumber(5000, 0, 120_000),
        AUDIT_API_URL: httpBaseUrl(),
      }),
    slotSeconds: () => {
      try {
        return scheduleSeconds(env.AUDIT_SCHEDULE?.trim() || "rate(5 minutes)");
      } catch {
        return 300; // reported once, by the snapshots section (snapshotsConfigFromEnv reads AUDIT_SCHEDULE too)
      }
    },
    slackWebhook: () => {
      const webhook = env.AUDIT_SLACK_WEBHOOK_URL?.trim();
      return webhook ? checkWebhookUrl(webhook, env.AUDIT_SLACK_WEBHOOK_ALLOW_HOSTS) : undefined;
    },
  });
  return {
    clusterConcurrency: numbers.AUDIT_CLUSTER_CONCURRENCY,
    releasesPerMessage: numbers.AUDIT_RELEASES_PER_MESSAGE,
    slotSeconds,
    deadlineMarginMs: numbers.AUDIT_DEADLINE_MARGIN_MS,
    ...(slackWebhook ? { slackWebhook } : {}),
    ...(numbers.AUDIT_API_URL ? { apiBaseUrl: numbers.AUDIT_API_URL } : {}),
  };
}

/** The run id of the schedule slot `time` falls in (a retried planner for the slot gets the same id). */
export function slotStart(time: Date, slotSeconds: number): Date {
  const ms = slotSeconds * 1000;
  return new Date(Math.floor(time.getTime() / ms) * ms);
}
