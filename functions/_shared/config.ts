// zod's functional build: tree-shaken to what is used (the classic `zod` import would add ~440 KB to every bundle).
import * as z from "zod/mini";
import type { ClusterEntry } from "../../shared/clusters/connector.ts";
import { loadClusterRegistry } from "../../shared/clusters/registry.ts";
import { errorKind } from "../../shared/errors.ts";
import { http2FromEnv } from "../../shared/kube/http2-env.ts";
import { type QueueClientConfig, queueClientConfigFromEnv, queueUrlFromEnv } from "../../shared/queue/config.ts";
import { type StoreConfig, storeConfigFromEnv } from "../../shared/store/config.ts";
import { whoLookupFromEnv as whoLookupSetting } from "../../shared/who/config.ts";

/**
 * Configuration of every Lambda of the product, read once per cold start. Each function adds its own sections
 * (the API its settings, the audit worker its queue) to the common ones; every problem of every section is
 * reported at once, each naming its variable, because fixing one variable per failed deploy is slow.
 */

/** The environment a function reads (process.env, or a test's object). */
export type Env = Record<string, string | undefined>;

/** Configuration read at cold start is missing or malformed: the function refuses to start. */
export class LambdaConfigError extends errorKind("internal", "LambdaConfigInvalid") {}

type Readers = Record<string, () => unknown>;
type Read<R extends Readers> = { [K in keyof R]: ReturnType<R[K]> };

/**
 * Runs every reader, collecting their errors; throws one LambdaConfigError listing all of them
 * (`invalid <what> configuration: A; B`), or returns every section.
 */
export function readConfig<R extends Readers>(what: string, readers: R): Read<R> {
  try {
    return readSections(readers);
  } catch (error) {
    if (error instanceof LambdaConfigError)
      throw new LambdaConfigError(`invalid ${what} configuration: ${error.message}`);
    throw error;
  }
}

/** `readConfig` for one section made of several readers: their problems joined (`A; B`), no prefix. */
export function readSections<R extends Readers>(readers: R): Read<R> {
  const problems: string[] = [];
  const result: Record<string, unknown> = {};
  for (const [name, read] of Object.entries(readers)) {
    try {
      result[name] = read();
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  if (problems.length > 0) throw new LambdaConfigError(problems.join("; "));
  return result as Read<R>;
}

/** An unset or blank variable is absent: a deploy tool writes "" for an unset optional setting. */
const present = (raw: unknown) => (typeof raw === "string" && raw.trim() !== "" ? raw.trim() : undefined);

/** A whole-number setting within `min..max`, `fallback` when unset. */
export function wholeNumber(fallback: number, min: number, max: number, why?: string) {
  const expected = `(expected ${min}..${max}${why ? `; ${why}` : ""})`;
  const number = z.pipe(
    z.string().check(z.regex(/^\d+$/, `is not a whole number ${expected}`)),
    z.pipe(
      z.transform(Number),
      z.number().check(z.gte(min, `is out of range ${expected}`), z.lte(max, `is out of range ${expected}`)),
    ),
  );
  return z.pipe(z.transform(present), z._default(number, fallback));
}

/** An optional http(s) base URL (links to the API in chat answers and notifications); its trailing / dropped. */
export function httpBaseUrl() {
  const url = z.pipe(
    z.string().check(z.regex(/^https?:\/\/[^\s/]+(\/\S*)?$/, "is not an http(s) URL")),
    z.transform((value: string) => value.replace(/\/$/, "")),
  );
  return z.pipe(z.transform(present), z.optional(url));
}

/** An optional string setting matching `pattern`, `fallback` when unset. */
export function matching(pattern: RegExp, message: string, fallback: string) {
  return z.pipe(z.transform(present), z._default(z.string().check(z.regex(pattern, message)), fallback));
}

/** WHO_LOOKUP (on|off, default on): whether who made each new revision and drift write is looked up (docs/who.md). */
export function whoLookupFromEnv(env: Env): boolean {
  return whoLookupSetting(env, (message) => new LambdaConfigError(message));
}

/**
 * Reads the variables `shape` names (no secrets: a bad value is quoted in the error), every problem at once as
 * `NAME=<value> <what is wrong>`.
 */
export function parseEnv<S extends z.core.$ZodLooseShape>(env: Env, shape: S): z.output<z.ZodMiniObject<S>> {
  const result = z.object(shape).safeParse(env, { reportInput: true });
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const input = issue.input;
    const shown = typeof input === "string" ? JSON.stringify(input.slice(0, 100)) : String(input);
    return `${String(issue.path[0])}=${shown} ${issue.message}`;
  });
  throw new LambdaConfigError(problems.join("; "));
}

export type LogLevel = "DEBUG" | "INFO" | "WARN" | "ERROR" | "SILENT";

export interface TelemetryConfig {
  serviceName: string;
  logLevel: LogLevel;
  metricsNamespace: string;
}

const LOG_LEVELS = ["DEBUG", "INFO", "WARN", "ERROR", "SILENT"] as const satisfies readonly LogLevel[];

export function telemetryConfigFromEnv(env: Env, defaultServiceName: string): TelemetryConfig {
  const raw = (env.POWERTOOLS_LOG_LEVEL ?? env.LOG_LEVEL ?? "INFO").trim().toUpperCase();
  return {
    serviceName: env.POWERTOOLS_SERVICE_NAME?.trim() || defaultServiceName,
    // An unknown level keeps INFO rather than failing the start: logs are not worth an outage.
    logLevel: z.catch(z.enum(LOG_LEVELS), "INFO").parse(raw),
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

/** The readers of the common sections (functionConfigFromEnv). */
function runtimeConfigReaders(env: Env, serviceName: string) {
  return {
    store: () => storeConfigFromEnv(env),
    registry: () => loadClusterRegistry(env),
    telemetry: () => telemetryConfigFromEnv(env, serviceName),
    kube: () => ({ http2: http2FromEnv(env) }),
  };
}

/**
 * A function's whole configuration: the common runtime sections plus its own sections (`own`), every problem of
 * every section at once (`invalid <what> configuration: …`).
 */
export function functionConfigFromEnv<R extends Readers>(what: string, env: Env, serviceName: string, own: R) {
  return readConfig(what, { ...runtimeConfigReaders(env, serviceName), ...own });
}

/** The common sections plus a work queue's (the audit's, the sync's): its client, and its URL where one is sent to. */
export interface QueueFunctionConfig extends RuntimeConfig {
  queue: QueueClientConfig;
  /** The queue's URL (AUDIT_QUEUE_URL, SYNC_QUEUE_URL): read by the entry point that sends to it only. */
  queueUrl?: string;
}

/** The queue sections of a QueueFunctionConfig; `sends`: this entry point sends to the queue, so needs its URL. */
export function queueConfigReaders(env: Env, urlVariable: string, sends: boolean | undefined) {
  return {
    queue: () => queueClientConfigFromEnv(env),
    queueUrl: () => (sends ? queueUrlFromEnv(env, urlVariable) : undefined),
  };
}
