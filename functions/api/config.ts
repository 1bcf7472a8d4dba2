import type { ClusterEntry } from "../../shared/clusters/connector.ts";
import { loadClusterRegistry } from "../../shared/clusters/registry.ts";
import { type StoreConfig, storeConfigFromEnv } from "../../shared/store/config.ts";
import { ApiConfigError } from "./errors.ts";

/**
 * The API function's own settings, read once at cold start. A bad value stops
 * the function before it serves anything (fail fast): a typo in STATUS_CONCURRENCY
 * should be a clear init error, not a status page that silently runs serially.
 */
export interface ApiSettings {
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
}

/** Lambda's synchronous invocation payload limit (6 MB), measured on the serialized result. */
export const LAMBDA_RESPONSE_LIMIT_BYTES = 6 * 1024 * 1024;

type Env = Record<string, string | undefined>;

/** Everything the API reads from its environment. */
export interface ApiConfig {
  /** The releases table (RELEASES_TABLE, AWS_REGION, AWS_ENDPOINT_URL_DYNAMODB). */
  store: StoreConfig;
  /** The clusters it may reach (CLUSTERS or CLUSTERS_FILE). */
  registry: ClusterEntry[];
  settings: ApiSettings;
}

/**
 * Reads and validates the whole configuration, reporting every problem at once
 * (fixing one variable per failed deploy is slow), each named by its variable.
 */
export function apiConfigFromEnv(env: Env): ApiConfig {
  const problems: string[] = [];
  const attempt = <T>(read: () => T): T | undefined => {
    try {
      return read();
    } catch (error) {
      problems.push((error as Error).message);
      return undefined;
    }
  };
  const store = attempt(() => storeConfigFromEnv(env));
  const registry = attempt(() => loadClusterRegistry(env));
  const settings = attempt(() => apiSettingsFromEnv(env));
  if (!store || !registry || !settings) {
    throw new ApiConfigError(`invalid API configuration: ${problems.join("; ")}`);
  }
  return { store, registry, settings };
}

export function apiSettingsFromEnv(env: Env): ApiSettings {
  const problems: string[] = [];
  const int = (key: string, fallback: number, min: number, max: number): number => {
    const raw = env[key];
    if (raw === undefined || raw.trim() === "") return fallback;
    if (!/^\d+$/.test(raw.trim())) {
      problems.push(`${key}=${JSON.stringify(raw)} is not a whole number (expected ${min}..${max})`);
      return fallback;
    }
    const value = Number(raw.trim());
    if (value < min || value > max) {
      problems.push(`${key}=${value} is out of range (expected ${min}..${max})`);
      return fallback;
    }
    return value;
  };

  const settings: ApiSettings = {
    statusConcurrency: int("STATUS_CONCURRENCY", 64, 1, 256),
    clusterMaxInFlight: int("CLUSTER_MAX_IN_FLIGHT", 128, 1, 1024),
    deadlineMarginMs: int("STATUS_DEADLINE_MARGIN_MS", 1500, 0, 60_000),
    maxResponseBytes: int("API_MAX_RESPONSE_BYTES", LAMBDA_RESPONSE_LIMIT_BYTES, 1024, LAMBDA_RESPONSE_LIMIT_BYTES),
    maxBodyBytes: int("API_MAX_BODY_BYTES", LAMBDA_RESPONSE_LIMIT_BYTES, 1024, LAMBDA_RESPONSE_LIMIT_BYTES),
  };
  if (problems.length > 0) {
    throw new ApiConfigError(problems.join("; "));
  }
  return settings;
}
