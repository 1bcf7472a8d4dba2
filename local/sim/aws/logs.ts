/**
 * CloudWatch Logs, the part a product reading EKS audit logs uses, over the AWS JSON 1.1 protocol
 * (`X-Amz-Target: Logs_20140328.<Operation>`) as @aws-sdk/client-cloudwatch-logs sends it, SigV4-verified:
 * FilterLogEvents (logs-filter.ts's patterns), StartQuery / GetQueryResults / StopQuery (Logs Insights,
 * logs-insights.ts's subset) and
 * DescribeLogGroups. One log group per cluster whose audit logging was ever on (`/aws/eks/<cluster>/cluster`, in
 * the cluster's region: the signing region picks the groups), one `kube-apiserver-audit-<hex>` stream, events
 * visible once their delivery lag is over (by the object clock). Errors have the service's shapes:
 * ResourceNotFoundException, InvalidParameterException, MalformedQueryException, LimitExceededException (too many
 * running queries), ThrottlingException "Rate exceeded" (requests per second per action), AccessDeniedException.
 */
import type { IncomingMessage } from "node:http";
import type { AuditLog } from "../kube/audit.ts";
import type { SimIam, SimPrincipal } from "./iam.ts";
import { filterPattern, type LogRecord, QuerySyntaxError } from "./logs-filter.ts";
import { InsightsQueries, invalid, LogsError, optionalInteger } from "./logs-queries.ts";
import { SignatureRejected, verifyHeaderSignature } from "./sigv4.ts";

export interface LogsLimits {
  /** Requests per second per operation, per account and region (CloudWatch Logs' TPS quotas). Default 5. */
  tps: number;
  /** Logs Insights queries running at once (Scheduled or Running). Default 30. */
  maxConcurrentQueries: number;
  /** How long a query runs before GetQueryResults says Complete (real time). Default 0. */
  queryLatencyMs: number;
}

const DEFAULT_LIMITS: LogsLimits = { tps: 5, maxConcurrentQueries: 30, queryLatencyMs: 0 };
/** FilterLogEvents answers at most this many bytes of messages per page (1 MB), then a nextToken. */
const MAX_PAGE_BYTES = 1024 * 1024;

/** What the endpoint needs of a cluster. */
export interface LoggingCluster {
  name: string;
  region: string;
  audit: AuditLog;
}

interface Handled {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/** The simulated CloudWatch Logs service of the account. */
export class SimLogs {
  private limits: LogsLimits;
  private readonly calls = new Map<string, number[]>();
  private readonly queries: InsightsQueries;
  private throttleNext = 0;
  private readonly iam: SimIam;
  private readonly clusters: () => LoggingCluster[];
  private readonly now: () => Date;
  private readonly authNow: () => Date;

  constructor(
    iam: SimIam,
    clusters: () => LoggingCluster[],
    options: { now: () => Date; authNow: () => Date; limits?: Partial<LogsLimits> },
  ) {
    this.iam = iam;
    this.clusters = clusters;
    this.now = options.now;
    this.authNow = options.authNow;
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.queries = new InsightsQueries(() => this.limits, options.authNow);
  }

  setLimits(limits: Partial<LogsLimits>): void {
    this.limits = { ...this.limits, ...limits };
  }

  /** The next `count` requests answer ThrottlingException, whatever the rate. */
  throttle(count: number): void {
    this.throttleNext = count;
  }

  handler() {
    return async (req: IncomingMessage, body: string, url: URL): Promise<Handled> => {
      try {
        return reply(200, await this.serve(req, body, url));
      } catch (error) {
        if (error instanceof LogsError) return reply(400, { __type: error.type, message: error.message });
        throw error;
      }
    };
  }

  private async serve(req: IncomingMessage, body: string, url: URL): Promise<unknown> {
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(req.headers)) if (typeof value === "string") headers[key] = value;
    let principal: SimPrincipal;
    try {
      principal = await verifyHeaderSignature(
        this.iam,
        { method: req.method ?? "POST", path: url.pathname, query: {}, headers, body },
        this.authNow(),
      );
    } catch (error) {
      if (!(error instanceof SignatureRejected)) throw error;
      const type =
        error.awsCode === "SignatureDoesNotMatch" ? "InvalidSignatureException" : "UnrecognizedClientException";
      throw new LogsError(type, error.message);
    }
    const region = /Credential=[^/]+\/\d{8}\/([^/]+)\//.exec(headers.authorization ?? "")?.[1] ?? "us-east-1";
    const operation = /^Logs_20140328\.(\w+)$/.exec(headers["x-amz-target"] ?? "")?.[1] ?? "";
    const known = ["FilterLogEvents", "StartQuery", "GetQueryResults", "StopQuery", "DescribeLogGroups"];
    if (!known.includes(operation))
      throw new LogsError("UnknownOperationException", `Unknown operation ${headers["x-amz-target"] ?? ""}`);
    let input: Record<string, unknown>;
    try {
      input = JSON.parse(body || "{}");
    } catch {
      throw new LogsError("SerializationException", "Start of structure or map found where not expected.");
    }
    this.checkRate(operation);
    if (this.iam.isDenied(principal, `logs:${operation}`)) {
      throw new LogsError(
        "AccessDeniedException",
        `User: ${principal.arn} is not authorized to perform: logs:${operation} because no identity-based policy allows the logs:${operation} action`,
      );
    }
    switch (operation) {
      case "FilterLogEvents":
        return this.filterLogEvents(region, principal.account, input);
      case "StartQuery":
        return this.queries.start(input, this.queryRecords(region, principal.account));
      case "GetQueryResults":
        return this.queries.results(input);
      case "StopQuery":
        return this.queries.stop(input);
      default:
        return this.describeLogGroups(region, principal.account, input);
    }
  }

  /** A sliding one-second window per operation (real time, like the service's quotas). */
  private checkRate(operation: string): void {
    if (this.throttleNext > 0) {
      this.throttleNext -= 1;
      throw new LogsError("ThrottlingException", "Rate exceeded");
    }
    const now = this.authNow().getTime();
    const recent = (this.calls.get(operation) ?? []).filter((at) => now - at < 1000);
    if (recent.length >= this.limits.tps) {
      this.calls.set(operation, recent);
      throw new LogsError("ThrottlingException", "Rate exceeded");
    }
    recent.push(now);
    this.calls.set(operation, recent);
  }

  private group(region: string, name: unknown): LoggingCluster {
    const text = String(name ?? "");
    // logGroupIdentifier may be the group's ARN (arn:aws:logs:region:account:log-group:NAME[:*]).
    const groupName = text.startsWith("arn:")
      ? text.replace(/^arn:[^:]+:logs:[^:]*:\d*:log-group:/, "").replace(/:\*$/, "")
      : text;
    const cluster = this.clusters().find(
      (c) => c.region === region && c.audit.logGroupName === groupName && c.audit.groupExists,
    );
    if (!cluster) throw new LogsError("ResourceNotFoundException", "The specified log group does not exist.");
    return cluster;
  }

  private records(cluster: LoggingCluster, account: string, from?: number, to?: number): LogRecord[] {
    return cluster.audit
      .delivered(this.now().getTime())
      .filter((e) => (from === undefined || e.timestamp >= from) && (to === undefined || e.timestamp <= to))
      .map((e) => ({
        ...e,
        logStreamName: cluster.audit.streamName,
        logGroupName: cluster.audit.logGroupName,
        account,
      }));
  }

  private filterLogEvents(region: string, account: string, input: Record<string, unknown>): unknown {
    const { logGroupName, logGroupIdentifier, logStreamNames, logStreamNamePrefix } = input;
    if (Boolean(logGroupName) === Boolean(logGroupIdentifier))
      throw invalid("Exactly one of logGroupName or logGroupIdentifier must be provided.");
    if (logStreamNames !== undefined && logStreamNamePrefix !== undefined)
      throw invalid("logStreamNames and logStreamNamePrefix are mutually exclusive.");
    const limit = optionalInteger(input.limit, "limit", 1, 10_000) ?? 10_000;
    const startTime = optionalInteger(input.startTime, "startTime", 0);
    const endTime = optionalInteger(input.endTime, "endTime", 0);
    if (startTime !== undefined && endTime !== undefined && endTime < startTime)
      throw invalid("endTime must be greater than or equal to startTime.");
    let matches: (message: string) => boolean;
    try {
      matches = filterPattern(input.filterPattern as string | undefined);
    } catch (error) {
      if (error instanceof QuerySyntaxError) throw invalid(`Invalid filter pattern: ${error.message}`);
      throw error;
    }
    const cluster = this.group(region, logGroupName ?? logGroupIdentifier);
    const stream = cluster.audit.streamName;
    const streamWanted =
      (Array.isArray(logStreamNames) ? logStreamNames.includes(stream) : true) &&
      (typeof logStreamNamePrefix === "string" ? stream.startsWith(logStreamNamePrefix) : true);
    const all = streamWanted
      ? this.records(cluster, account, startTime, endTime).filter((r) => matches(r.message))
      : [];
    const offset = input.nextToken === undefined ? 0 : tokenOffset(input.nextToken);
    const events: unknown[] = [];
    let bytes = 0;
    let index = offset;
    for (; index < all.length && events.length < limit && bytes < MAX_PAGE_BYTES; index++) {
      const r = all[index];
      bytes += r.message.length;
      events.push({
        logStreamName: r.logStreamName,
        timestamp: r.timestamp,
        message: r.message,
        ingestionTime: r.ingestionTime,
        eventId: r.eventId,
      });
    }
    return {
      events,
      searchedLogStreams: streamWanted ? [{ logStreamName: stream, searchedCompletely: index >= all.length }] : [],
      ...(index < all.length ? { nextToken: Buffer.from(JSON.stringify({ o: index })).toString("base64url") } : {}),
    };
  }

  /** StartQuery's log groups, each as its records in the window (a missing one is StartQuery's own 400). */
  private queryRecords(region: string, account: string) {
    return (name: unknown, from: number, to: number): LogRecord[] => {
      try {
        return this.records(this.group(region, name), account, from, to);
      } catch {
        throw new LogsError(
          "ResourceNotFoundException",
          `Log group '${String(name)}' does not exist for account ID '${account}' (Service: CloudWatchLogs, Status Code: 400)`,
        );
      }
    };
  }

  private describeLogGroups(region: string, account: string, input: Record<string, unknown>): unknown {
    const prefix = typeof input.logGroupNamePrefix === "string" ? input.logGroupNamePrefix : "";
    const groups = this.clusters()
      .filter((c) => c.region === region && c.audit.groupExists && c.audit.logGroupName.startsWith(prefix))
      .map((c) => ({
        logGroupName: c.audit.logGroupName,
        creationTime: 0,
        metricFilterCount: 0,
        arn: `arn:aws:logs:${region}:${account}:log-group:${c.audit.logGroupName}:*`,
        storedBytes: 0,
        logGroupClass: "STANDARD",
        logGroupArn: `arn:aws:logs:${region}:${account}:log-group:${c.audit.logGroupName}`,
      }));
    return { logGroups: groups };
  }
}

function reply(status: number, body: unknown): Handled {
  return { status, body: JSON.stringify(body), headers: { "content-type": "application/x-amz-json-1.1" } };
}

function tokenOffset(token: unknown): number {
  try {
    const parsed = JSON.parse(Buffer.from(String(token), "base64url").toString("utf8")) as { o?: unknown };
    if (Number.isInteger(parsed.o) && (parsed.o as number) >= 0) return parsed.o as number;
  } catch {
    // falls through
  }
  throw invalid("The specified nextToken is invalid.");
}
