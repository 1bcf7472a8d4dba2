import type { ClusterEntry } from "../../shared/clusters/connector.ts";
import { loadClusterRegistry } from "../../shared/clusters/registry.ts";
import { DomainError } from "../../shared/errors.ts";
import { http2FromEnv } from "../../shared/kube/http2-env.ts";
import { type StoreConfig, storeConfigFromEnv } from "../../shared/store/config.ts";

/**
 * Configuration of every Lambda of the product, read once at cold start. Each function adds its own sections
 * (the API its settings, the audit worker its queue) to the common ones; every problem of every section is
 * reported at once, each naming its variable, because fixing one variable per failed deploy is slow.
 */

export type Env = Record<string, string | undefined>;

/** Configuration read at cold start is missing or malformed: the function refuses to start. */
export class LambdaConfigError extends DomainError {
  readonly kind = "internal" as const;
  readonly code = "LambdaConfigInvalid";
}

type Readers = Record<string, () => unknown>;
type Read<R extends Readers> = { [K in keyof R]: ReturnType<R[K]> };

/**
 * Runs every reader, collecting their errors; throws one LambdaConfigError listing all of them
 * (`invalid <what> configuration: A; B`), or returns every section.
 */
export function readConfig<R extends Readers>(what: string, readers: R): Read<R> {
  const problems: string[] = [];
  const result: Record<string, unknown> = {};
  for (const [name, read] of Object.entries(readers)) {
    try {
      result[name] = read();
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  if (problems.length > 0) throw new LambdaConfigError(`invalid ${what} configuration: ${problems.join("; ")}`);
  return result as Read<R>;
}

/**
 * A reader of whole-number settings that collects its problems: call `int` for each setting, then `done()`
 * throws them all at once (or returns nothing).
 */
export function intSettings(env: Env) {
  const problems: string[] = [];
  return {
    int(key: string, fallback: number, min: number, max: number): number {
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
    },
    done(): void {
      if (problems.length > 0) throw new LambdaConfigError(problems.join("; "));
    },
  };
}

export type LogLevel = "DEBUG" | "INFO" | "WARN" | "ERROR" | "SILENT";

export interface TelemetryConfig {
  serviceName: string;
  logLevel: LogLevel;
  metricsNamespace: string;
}

const LOG_LEVELS: readonly LogLevel[] = ["DEBUG", "INFO", "WARN", "ERROR", "SILENT"];

export function telemetryConfigFromEnv(env: Env, defaultServiceName: string): TelemetryConfig {
  const raw = (env.POWERTOOLS_LOG_LEVEL ?? env.LOG_LEVEL ?? "INFO").trim().toUpperCase();
  return {
    serviceName: env.POWERTOOLS_SERVICE_NAME?.trim() || defaultServiceName,
    // An unknown level keeps INFO rather than failing the start: logs are not worth an outage.
    logLevel: (LOG_LEVELS as readonly string[]).includes(raw) ? (raw as LogLevel) : "INFO",
    metricsNamespace: env.POWERTOOLS_METRICS_NAMESPACE?.trim() || "HelmStatus",
  };
}

/** What every function reads: the releases table, the cluster registry, logging and metrics. */
export interface RuntimeConfig {
  /** RELEASES_TABLE, AWS_REGION, AWS_ENDPOINT_URL_DYNAMODB. */
  store: StoreConfig;
  /** CLUSTERS or CLUSTERS_FILE. */
  registry: ClusterEntry[];
  telemetry: TelemetryConfig;
  /** DISABLE_HTTP2 (client-go's switch): the KubeReader offers API servers HTTP/2 unless it is set. */
  kube?: { http2: boolean };
}

/** The readers of the common sections, to spread into a function's own `readConfig` call. */
export function runtimeConfigReaders(env: Env, serviceName: string) {
  return {
    store: () => storeConfigFromEnv(env),
    registry: () => loadClusterRegistry(env),
    telemetry: () => telemetryConfigFromEnv(env, serviceName),
    kube: () => ({ http2: http2FromEnv(env) }),
  };
}
