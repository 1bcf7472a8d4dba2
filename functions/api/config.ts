import { type SnapshotsConfig, snapshotsConfigFromEnv } from "../../shared/snapshots/config.ts";
import {
  type Env,
  functionConfigFromEnv,
  matching,
  parseEnv,
  type RuntimeConfig,
  whoLookupFromEnv,
  wholeNumber,
} from "../_shared/config.ts";
import { LAMBDA_RESPONSE_LIMIT_BYTES } from "../_shared/http/handler.ts";
import { type DashboardConfig, dashboardConfigFromEnv } from "./dashboard-config.ts";

/**
 * The API function's own settings, read once at cold start. A bad value stops
 * the function before it serves anything (fail fast): a typo in STATUS_CONCURRENCY
 * should be a clear init error, not a status page that silently runs serially.
 */
export interface ApiSettings {
  /**
   * Log excerpts of crashed containers in the status's WHY (LOG_EXCERPTS=on; default off): IAM callers get them,
   * dashboard users where an access rule grants `logs: true` (docs/status.md "Log excerpts").
   */
  logExcerpts: boolean;
  /**
   * Most resource GETs in flight per status request (STATUS_CONCURRENCY, 1..256, default 64: a release of
   * up to 64 reads is one wave). Every status also shares the per-cluster limit (docs/status.md).
   */
  statusConcurrency: number;
  /**
   * Most GETs in flight to one cluster from this process, all statuses together (CLUSTER_MAX_IN_FLIGHT,
   * 1..1024, default 128); lowered on 429s and recovered gradually.
   */
  clusterMaxInFlight: number;
  /**
   * Time kept back from the Lambda's remaining time when computing the status
   * deadline, for rendering and returning the partial report (STATUS_DEADLINE_MARGIN_MS,
   * 0..60000, default 1500).
   */
  deadlineMarginMs: number;
  /** Largest response payload; Lambda refuses more than 6 MB (API_MAX_RESPONSE_BYTES to lower it). */
  maxResponseBytes: number;
  /** Largest accepted POST body in bytes, after base64 decoding (API_MAX_BODY_BYTES, default 6 MB). */
  maxBodyBytes: number;
  /** WHO_LOOKUP (default on): POST /sync enqueues the revisions it imports for attribution (docs/who.md). */
  whoLookup?: boolean;
}

export const API_SERVICE_NAME = "helm-status-api";

/** Everything the API reads from its environment: the common runtime sections plus its settings. */
export interface ApiConfig extends RuntimeConfig {
  settings: ApiSettings;
  /** SNAPSHOTS_TABLE, SNAPSHOT_RETENTION_DAYS: the history routes' table. */
  snapshots: SnapshotsConfig;
  /** The dashboard: sign-in, access map, static files (docs/dashboard.md). */
  dashboard: DashboardConfig;
}

/** Reads and validates the whole configuration, reporting every problem at once, each named by its variable. */
export function apiConfigFromEnv(env: Env): ApiConfig {
  return functionConfigFromEnv("API", env, API_SERVICE_NAME, {
    settings: () => apiSettingsFromEnv(env),
    snapshots: () => snapshotsConfigFromEnv(env),
    dashboard: () => dashboardConfigFromEnv(env),
  });
}

export function apiSettingsFromEnv(env: Env): ApiSettings {
  const limit = LAMBDA_RESPONSE_LIMIT_BYTES;
  const read = parseEnv(env, {
    STATUS_CONCURRENCY: wholeNumber(64, 1, 256),
    CLUSTER_MAX_IN_FLIGHT: wholeNumber(128, 1, 1024),
    STATUS_DEADLINE_MARGIN_MS: wholeNumber(1500, 0, 60_000),
    API_MAX_RESPONSE_BYTES: wholeNumber(limit, 1024, limit),
    API_MAX_BODY_BYTES: wholeNumber(limit, 1024, limit),
    LOG_EXCERPTS: matching(/^(on|off)$/, "must be on or off", "off"),
  });
  return {
    statusConcurrency: read.STATUS_CONCURRENCY,
    clusterMaxInFlight: read.CLUSTER_MAX_IN_FLIGHT,
    deadlineMarginMs: read.STATUS_DEADLINE_MARGIN_MS,
    maxResponseBytes: read.API_MAX_RESPONSE_BYTES,
    maxBodyBytes: read.API_MAX_BODY_BYTES,
    logExcerpts: read.LOG_EXCERPTS === "on",
    whoLookup: whoLookupFromEnv(env),
  };
}
