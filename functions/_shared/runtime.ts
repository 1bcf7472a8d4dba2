import type { Context } from "aws-lambda";
import type { ClusterConnector } from "../../shared/clusters/connector.ts";
import { createEksConnector } from "../../shared/eks/connector.ts";
import { openClusterFactsStore } from "../../shared/eks/facts-store.ts";
import { createKubeReader, type KubeReader, type KubeReaderOptions } from "../../shared/kube/reader.ts";
import { type Clock, type Logger, systemClock } from "../../shared/ports.ts";
import { openReleaseStore } from "../../shared/store/config.ts";
import type { ReleaseStore } from "../../shared/store/release-store.ts";
import type { RuntimeConfig } from "./config.ts";
import type { Telemetry } from "./telemetry.ts";
import { createLogger, createMetrics, loggerPort } from "./telemetry.ts";

/**
 * What every Lambda of the product runs on, built once per cold start from its validated configuration and
 * owned by this object (no module globals): the store, the cluster registry and connector, the KubeReader
 * (connection pools, per-cluster limits, discovery and manifest caches), the clock, the logger and the telemetry.
 * Every function builds it in its entry point (shell.ts `lambdaEntry`), then its per-event code calls the use
 * cases with `runtime.store`, `runtime.clusters`, ... (docs/architecture.md). The same names in every function's
 * deps: `clock` (the one time source), `logger` (the use cases' port), `telemetry` (Powertools' Logger and
 * Metrics, for the shell's middlewares and metrics); deadlines come from `deadlineFrom`.
 */
export interface LambdaRuntime {
  config: RuntimeConfig;
  store: ReleaseStore;
  /** The registry (`list()`) and the way into its clusters: the ClusterScope every use case checks. */
  clusters: ClusterConnector;
  clock: Clock;
  /** The use cases' logger port (shared/ports.ts), writing through the telemetry's Powertools logger. */
  logger: Logger;
  /** Powertools' Logger and Metrics: the shell's middlewares, the functions' metrics. */
  telemetry: Telemetry;
  /** Reads clusters' live state: pools, per-cluster limits, discovery and prepared-manifest caches. */
  kube: KubeReader;
  /** Releases what the runtime holds (the KubeReader's connections to clusters); for tests and local servers. */
  close(): Promise<void>;
}

/** What tests and local servers inject; `logger` defaults to the port over `telemetry`'s Powertools logger. */
export type RuntimeOverrides = Partial<Pick<LambdaRuntime, "store" | "clusters" | "kube" | "clock" | "logger">> & {
  telemetry?: Partial<Telemetry>;
};

/** `reader`: the function's own KubeReader settings (the API's STATUS_CONCURRENCY, CLUSTER_MAX_IN_FLIGHT). */
export function createLambdaRuntime(
  config: RuntimeConfig,
  overrides: RuntimeOverrides = {},
  reader: Omit<KubeReaderOptions, "connector" | "clock"> = {},
): LambdaRuntime {
  const telemetry: Telemetry = {
    logger: overrides.telemetry?.logger ?? createLogger(config.telemetry),
    metrics: overrides.telemetry?.metrics ?? createMetrics(config.telemetry),
  };
  const log = overrides.logger ?? loggerPort(telemetry.logger);
  const clock = overrides.clock ?? systemClock;
  // DescribeCluster's answers are kept in the releases table: a cold start does not ask EKS for each cluster again.
  const clusters =
    overrides.clusters ??
    createEksConnector({ registry: config.registry, clock, logger: log, facts: openClusterFactsStore(config.store) });
  const kube =
    overrides.kube ??
    createKubeReader({ http2: config.kube?.http2, ...reader, connector: clusters, clock, logger: log });
  return {
    config,
    store: overrides.store ?? openReleaseStore(config.store),
    clusters,
    kube,
    clock,
    logger: log,
    telemetry,
    close: () => kube.close(),
  };
}

/** When no Lambda context tells the remaining time (local tools, tests), an invocation gets this long. */
export const DEFAULT_BUDGET_MS = 25_000;

export interface DeadlineOptions {
  /** Now by the clock the deadline is checked against (the KubeReader's); Date.now() otherwise. */
  now?: number;
  /** The least time the work gets even when the margin eats all that is left (a batch still makes progress). */
  floorMs?: number;
  /** The most time the work gets, however long the Lambda may run: a caller that waits less (Teams' 5 s). */
  budgetMs?: number;
}

/**
 * The one deadline of every function: the epoch ms by which an invocation's work must be done, what the Lambda
 * has left minus `marginMs` kept for shaping and returning the answer (the API's status, the import's last
 * write, the audit worker's snapshot writes, the chat worker's post), so a slow dependency yields a partial
 * answer instead of a timeout.
 */
export function deadlineFrom(
  context: Pick<Context, "getRemainingTimeInMillis"> | undefined,
  marginMs: number,
  options: DeadlineOptions = {},
): number {
  const remaining =
    typeof context?.getRemainingTimeInMillis === "function" ? context.getRemainingTimeInMillis() : DEFAULT_BUDGET_MS;
  const left = Math.max(options.floorMs ?? 0, remaining - marginMs);
  return (options.now ?? Date.now()) + Math.min(left, options.budgetMs ?? Number.POSITIVE_INFINITY);
}

/** What an invocation keeps for answering when its function names no margin of its own. */
export const DEFAULT_ANSWER_MARGIN_MS = 1_000;

/**
 * The signal every store call of one invocation is given (shared/request-budget.ts): it fires at the invocation's
 * deadline (`deadlineFrom` with the same margin), so a store that never answers ends the call in time for the
 * function to answer 504 itself. None without a Lambda context (a local tool calling a handler directly).
 */
export function budgetSignal(
  context: Pick<Context, "getRemainingTimeInMillis"> | undefined,
  marginMs = DEFAULT_ANSWER_MARGIN_MS,
): AbortSignal | undefined {
  if (typeof context?.getRemainingTimeInMillis !== "function") return undefined;
  return AbortSignal.timeout(Math.max(0, context.getRemainingTimeInMillis() - marginMs));
}
