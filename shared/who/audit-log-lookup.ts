/**
 * The audit-log lookup on CloudWatch Logs (docs/who.md, "The lookup"): a batch of one cluster's subjects becomes
 * a few Logs Insights queries on `/aws/eks/<cluster>/cluster` (audit-query.ts), run in the cluster's region with
 * the cluster's credentials (its registry role assumed as shared/eks does it), one after another (the account's
 * concurrent queries are shared with everyone); the rows are matched to the subjects (audit-match.ts).
 *
 * Outcomes: `searched` with what was found (a subject not found yet is simply absent: logs arrive "within a few
 * minutes, best effort", the caller retries); `logging-off` when the log group does not exist, or when nothing
 * was found and DescribeCluster says the `audit` log type is off; `failed` otherwise, retryable or not.
 */
import type { CloudWatchLogsClient } from "@aws-sdk/client-cloudwatch-logs";
import type { DescribeClusterCommandOutput } from "@aws-sdk/client-eks";
import type { AwsConnection } from "../aws/connection.ts";
import type { ClusterEntry } from "../clusters/connector.ts";
import { accountCredentials } from "../eks/account-credentials.ts";
import {
  type CredentialsProvider,
  defaultEksClientFactory,
  defaultStsClientFactory,
  type EksClientFactory,
  type StsClientFactory,
} from "../eks/aws-calls.ts";
import { defaultCredentialChain } from "../eks/connector.ts";
import { isDomainError, publicErrorMessage } from "../errors.ts";
import { type Clock, type Logger, silentLogger, systemClock } from "../ports.ts";
import type { BackoffPolicy } from "../retry.ts";
import type { AttributionSubject, AuditLogLookup, LookupResult, WriteEvidence } from "./attribution.ts";
import { type AuditEventFacts, auditEventFromRow } from "./audit-events.ts";
import { matchSubjects } from "./audit-match.ts";
import { MAX_ROWS, planQueries, splitPlan } from "./audit-query.ts";
import { type LogsClientLike, LogsQueryError, runInsightsQuery } from "./logs-client.ts";

export type LogsClientFactory = (entry: ClusterEntry, credentials: CredentialsProvider) => LogsClientLike;

export interface CloudWatchAuditLogLookupOptions {
  registry: readonly ClusterEntry[];
  /**
   * The endpoint override and base keys: `awsConnectionFromEnv(env, "logs", fail)` (AWS_ENDPOINT_URL_CLOUDWATCH_LOGS).
   * Its region is not used: each cluster's log group is read in the cluster's region.
   */
  connection?: Pick<AwsConnection, "endpoint" | "credentials">;
  /** Base credentials; default: the connection's keys, else the SDK's default chain. A cluster's role is assumed with them. */
  credentials?: CredentialsProvider;
  logsClientFactory?: LogsClientFactory;
  stsClientFactory?: StsClientFactory;
  eksClientFactory?: EksClientFactory;
  clock?: Clock;
  /** Failures are logged here with their full text (callers read only `reason`). */
  logger?: Logger;
  /** One AWS call's deadline (default 5,000 ms). */
  requestTimeoutMs?: number;
  /** One query's deadline, its polls and retries included (default 30,000 ms); past it: StopQuery, failed retryable. */
  queryTimeoutMs?: number;
  /** At most this many queries per lookup (default 20); subjects of the queries beyond are left not found. */
  maxQueries?: number;
  /** Throttling and the concurrent-query limit: attempts per call and backoff (default 4 attempts, 200 ms doubling to 2 s). */
  retry?: Partial<BackoffPolicy & { maxAttempts: number }>;
  /** First GetQueryResults after this (default 250 ms, doubling up to 2 s). */
  pollMs?: number;
  /** Subjects' windows closer than this share a query (default 15 minutes). */
  mergeGapMs?: number;
  /** Ask DescribeCluster whether the `audit` log type is on when nothing was found (default true; cached 5 minutes). */
  checkLogging?: boolean;
}

/** How long DescribeCluster's answer about audit logging is reused. */
const LOGGING_TTL_MS = 5 * 60_000;

export function logGroupOf(cluster: string): string {
  return `/aws/eks/${cluster}/cluster`;
}

/** What to run to turn a cluster's audit logs on. */
export function enableAuditLoggingHint(entry: Pick<ClusterEntry, "name" | "region">): string {
  return `aws eks update-cluster-config --region ${entry.region} --name ${entry.name} --logging '{"clusterLogging":[{"types":["audit"],"enabled":true}]}'`;
}

export function createCloudWatchAuditLogLookup(options: CloudWatchAuditLogLookupOptions): AuditLogLookup {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const timeoutMs = options.requestTimeoutMs ?? 5_000;
  const entries = new Map(options.registry.map((entry) => [entry.name, entry]));
  const base = options.credentials ?? baseCredentials(options.connection);
  const logsFactory = options.logsClientFactory ?? defaultLogsClientFactory(options.connection, timeoutMs);
  const stsFactory = options.stsClientFactory ?? defaultStsClientFactory(timeoutMs);
  const eksFactory = options.eksClientFactory ?? defaultEksClientFactory(timeoutMs);
  const retry = { maxAttempts: 4, baseMs: 200, capMs: 2_000, ...options.retry };
  const maxQueries = options.maxQueries ?? 20;
  const clients = new Map<string, LogsClientLike>();
  const roles = accountCredentials({
    now: () => clock.now().getTime(),
    logger,
    timeoutMs,
    stsClientFactory: stsFactory,
    baseCredentials: () => base(),
  });
  const logging = new Map<string, { enabled: boolean; at: number }>();
  const eksClients = new Map<string, ReturnType<EksClientFactory>>();

  function credentialsOf(entry: ClusterEntry): CredentialsProvider {
    const { roleArn } = entry;
    if (!roleArn) return base;
    // One session per account (role and external id), shared by its clusters and by lookups running at once.
    return () => roles.get({ ...entry, roleArn });
  }

  function clientOf(entry: ClusterEntry): LogsClientLike {
    return once(clients, entry.name, () => logsFactory(entry, credentialsOf(entry)));
  }

  /** Whether DescribeCluster says the `audit` log type is on; undefined when it could not say. */
  async function auditLoggingOn(entry: ClusterEntry): Promise<boolean | undefined> {
    const cached = logging.get(entry.name);
    const now = clock.now().getTime();
    if (cached && now - cached.at < LOGGING_TTL_MS) return cached.enabled;
    try {
      const { DescribeClusterCommand } = await import("@aws-sdk/client-eks");
      const eks = once(eksClients, entry.name, () => eksFactory(entry, credentialsOf(entry)));
      const output: DescribeClusterCommandOutput = await eks.send(new DescribeClusterCommand({ name: entry.name }), {
        abortSignal: AbortSignal.timeout(timeoutMs),
      });
      const types = output.cluster?.logging?.clusterLogging ?? [];
      const enabled = types.some((setup) => setup.enabled === true && setup.types?.includes("audit"));
      logging.set(entry.name, { enabled, at: now });
      return enabled;
    } catch {
      return undefined;
    }
  }

  async function search(entry: ClusterEntry, subjects: readonly AttributionSubject[], signal?: AbortSignal) {
    const pending = planQueries(subjects, { mergeGapMs: options.mergeGapMs });
    const events: AuditEventFacts[] = [];
    let queries = 0;
    for (let plan = pending.shift(); plan && queries < maxQueries; plan = pending.shift()) {
      queries += 1;
      const rows = await runInsightsQuery(clientOf(entry), plan, {
        logGroupName: logGroupOf(entry.name),
        retry,
        pollMs: options.pollMs ?? 250,
        pollCapMs: 2_000,
        queryTimeoutMs: options.queryTimeoutMs ?? 30_000,
        signal,
      });
      // As many rows as a query returns at most: some may be missing; the subjects are asked again in halves.
      const halves = rows.length >= MAX_ROWS ? splitPlan(plan) : undefined;
      if (halves) pending.unshift(...halves);
      else {
        for (const row of rows) {
          const event = auditEventFromRow(row);
          if (event) events.push(event);
        }
      }
    }
    return { found: matchSubjects(subjects, events), queries };
  }

  return {
    async lookup(cluster, subjects, signal): Promise<LookupResult> {
      const entry = entries.get(cluster);
      if (!entry) return { outcome: "failed", reason: `cluster "${cluster}" is not in the registry`, retryable: false };
      const mine = subjects.filter((subject) => subject.cluster === cluster);
      if (mine.length === 0) return { outcome: "searched", found: new Map<string, WriteEvidence>(), queries: 0 };
      try {
        const { found, queries } = await search(entry, mine, signal);
        if (found.size === 0 && options.checkLogging !== false && (await auditLoggingOn(entry)) === false) {
          return { outcome: "logging-off", hint: enableAuditLoggingHint(entry) };
        }
        return { outcome: "searched", found, queries };
      } catch (error) {
        const result = failure(entry, error);
        logger.warn("audit log lookup failed", {
          cluster,
          subjects: mine.length,
          error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
          cause: error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined,
        });
        return result;
      }
    },
  };
}

/** The map's value for `key`, made and kept on first use. */
function once<V>(map: Map<string, V>, key: string, make: () => V): V {
  const kept = map.get(key);
  if (kept !== undefined) return kept;
  const made = make();
  map.set(key, made);
  return made;
}

function failure(entry: ClusterEntry, error: unknown): LookupResult {
  if (error instanceof LogsQueryError) {
    if (error.reason === "log-group-missing") return { outcome: "logging-off", hint: enableAuditLoggingHint(entry) };
    return { outcome: "failed", reason: error.message, retryable: error.retryable };
  }
  // The cluster's role could not be assumed (shared/eks's errors: denied is for an operator to fix).
  if (isDomainError(error)) {
    return { outcome: "failed", reason: publicErrorMessage(error), retryable: error.kind !== "misconfigured" };
  }
  return { outcome: "failed", reason: "the audit log lookup failed unexpectedly", retryable: true };
}

function baseCredentials(connection: CloudWatchAuditLogLookupOptions["connection"]): CredentialsProvider {
  const keys = connection?.credentials;
  return keys ? async () => keys : defaultCredentialChain();
}

/** A client per cluster, in its region, with one attempt per call: the lookup's own retry policy is the only one. */
function defaultLogsClientFactory(
  connection: CloudWatchAuditLogLookupOptions["connection"],
  timeoutMs: number,
): LogsClientFactory {
  return (entry, credentials) => {
    let client: Promise<CloudWatchLogsClient> | undefined;
    return {
      send(command, sendOptions) {
        client ??= import("@aws-sdk/client-cloudwatch-logs").then(
          ({ CloudWatchLogsClient }) =>
            new CloudWatchLogsClient({
              region: entry.region,
              endpoint: connection?.endpoint,
              credentials,
              maxAttempts: 1,
              requestHandler: { connectionTimeout: Math.min(timeoutMs, 3_000), requestTimeout: timeoutMs },
            }),
        );
        return client.then((loaded) => loaded.send(command, sendOptions));
      },
    };
  };
}
