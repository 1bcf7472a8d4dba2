/**
 * One Logs Insights query run to its end (docs/who.md, "The lookup"): StartQuery, then GetQueryResults until it
 * is Complete, within a deadline (the caller's signal and `queryTimeoutMs`; a query past it is stopped with
 * StopQuery, so it does not hold one of the account's concurrent queries). Throttling and the concurrency limit
 * are retried with the shared backoff (shared/retry.ts) for a bounded number of attempts; every other failure is
 * classified once, as `LogsQueryError`, in words without an ARN.
 */

import type {
  GetQueryResultsCommandOutput,
  ResultField,
  StartQueryCommandOutput,
} from "@aws-sdk/client-cloudwatch-logs";
import { awsErrorKind } from "../aws/error-names.ts";
import { isDomainError, withoutAwsDetails } from "../errors.ts";
import { type BackoffPolicy, backoffDelay, sleep } from "../retry.ts";
import type { PlannedQuery } from "./audit-query.ts";

/** The one method the lookup needs of a CloudWatch Logs client: a stub only has to answer this. */
export interface LogsClientLike {
  // biome-ignore lint/suspicious/noExplicitAny: the three commands sent here have their own outputs
  send(command: any, options?: { abortSignal?: AbortSignal }): Promise<any>;
}

export interface QueryRunOptions {
  logGroupName: string;
  /** Calls per operation, the first included, while CloudWatch Logs throttles or is at its query limit. */
  retry: BackoffPolicy & { maxAttempts: number };
  /** First wait before GetQueryResults (doubled up to `pollCapMs`). */
  pollMs: number;
  pollCapMs: number;
  /** How long one query may run, its retries included. */
  queryTimeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Why a query gave no answer. `log-group-missing`: the cluster's audit logs were never on; `denied`: this role may
 * not read them (not retryable); `throttled`, `timeout`, `unavailable`: try again later; `invalid`: a query the
 * service refused (a bug: not retryable).
 */
export class LogsQueryError extends Error {
  readonly reason: "log-group-missing" | "denied" | "throttled" | "timeout" | "unavailable" | "invalid";
  readonly retryable: boolean;
  constructor(reason: LogsQueryError["reason"], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "LogsQueryError";
    this.reason = reason;
    this.retryable = reason === "throttled" || reason === "timeout" || reason === "unavailable";
  }
}

const INVALID = new Set(["MalformedQueryException", "InvalidParameterException", "SerializationException"]);

/** The rows of one query: each a list of `{field, value}`. */
export async function runInsightsQuery(
  client: LogsClientLike,
  plan: PlannedQuery,
  options: QueryRunOptions,
): Promise<ResultField[][]> {
  const deadline = AbortSignal.any([
    ...(options.signal ? [options.signal] : []),
    AbortSignal.timeout(options.queryTimeoutMs),
  ]);
  const { StartQueryCommand, GetQueryResultsCommand } = await import("@aws-sdk/client-cloudwatch-logs");
  const started: StartQueryCommandOutput = await call("StartQuery", options, deadline, (abortSignal) =>
    client.send(
      new StartQueryCommand({
        logGroupName: options.logGroupName,
        startTime: plan.startTime,
        endTime: plan.endTime,
        queryString: plan.queryString,
      }),
      { abortSignal },
    ),
  );
  const queryId = started.queryId;
  if (!queryId) throw new LogsQueryError("unavailable", "CloudWatch Logs started a query without an id");
  try {
    for (let wait = options.pollMs; ; wait = Math.min(options.pollCapMs, wait * 2)) {
      await sleep(wait, deadline);
      if (deadline.aborted) throw timedOut(options);
      const answer: GetQueryResultsCommandOutput = await call("GetQueryResults", options, deadline, (abortSignal) =>
        client.send(new GetQueryResultsCommand({ queryId }), { abortSignal }),
      );
      const status = answer.status ?? "Unknown";
      if (status === "Complete") return answer.results ?? [];
      if (status !== "Running" && status !== "Scheduled") {
        throw new LogsQueryError("unavailable", `the audit log query ended ${status}`);
      }
    }
  } catch (error) {
    if (error instanceof LogsQueryError && error.reason === "timeout") await stopQuery(client, queryId);
    throw error;
  }
}

/** Frees the account's query slot; best effort, on its own short deadline (the query's has passed). */
async function stopQuery(client: LogsClientLike, queryId: string): Promise<void> {
  const { StopQueryCommand } = await import("@aws-sdk/client-cloudwatch-logs");
  await client.send(new StopQueryCommand({ queryId }), { abortSignal: AbortSignal.timeout(3_000) }).catch(() => {});
}

function timedOut(options: QueryRunOptions): LogsQueryError {
  return options.signal?.aborted
    ? new LogsQueryError("timeout", "the audit log lookup was cancelled before its query finished")
    : new LogsQueryError("timeout", `the audit log query did not finish within ${options.queryTimeoutMs} ms`);
}

/** One operation, retried while it is throttled or at the query limit, each failure classified. */
async function call<T>(
  operation: string,
  options: QueryRunOptions,
  deadline: AbortSignal,
  send: (abortSignal: AbortSignal) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    if (deadline.aborted) throw timedOut(options);
    try {
      return await send(deadline);
    } catch (error) {
      const name = (error as { name?: string }).name ?? "";
      if (deadline.aborted) throw timedOut(options);
      // The cluster's role could not be assumed (shared/eks classified it): the caller says what that means.
      if (isDomainError(error)) throw error;
      const kind = awsErrorKind(error);
      if (kind !== "throttled" && kind !== "unavailable") throw classify(operation, options.logGroupName, error);
      if (attempt >= options.retry.maxAttempts) {
        throw new LogsQueryError(
          "throttled",
          `CloudWatch Logs ${operation} still answered ${name} after ${attempt} attempts`,
          { cause: error },
        );
      }
      await sleep(backoffDelay(attempt, options.retry), deadline);
    }
  }
}

function classify(operation: string, logGroupName: string, error: unknown): LogsQueryError {
  const e = error as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const name = e.name ?? "Error";
  const status = e.$metadata?.httpStatusCode;
  if (name === "ResourceNotFoundException" && operation === "StartQuery") {
    return new LogsQueryError("log-group-missing", `the log group ${logGroupName} does not exist`, { cause: error });
  }
  // An expired session is not a refusal: the next run's credentials may read (unavailable, retried later).
  if (awsErrorKind(error) === "denied" || status === 403) {
    return new LogsQueryError(
      "denied",
      `CloudWatch Logs refused logs:${operation} on ${logGroupName} (${name}): the role needs logs:StartQuery and logs:GetQueryResults on it`,
      { cause: error },
    );
  }
  if (INVALID.has(name)) {
    const detail = withoutAwsDetails(String(e.message ?? "").split("\n")[0]);
    return new LogsQueryError("invalid", `CloudWatch Logs refused the audit log query: ${name}: ${detail}`, {
      cause: error,
    });
  }
  const code =
    (error as { code?: string; cause?: { code?: string } }).code ??
    (error as { cause?: { code?: string } }).cause?.code;
  const detail = withoutAwsDetails(code ?? `${name}: ${String(e.message ?? "").split("\n")[0]}`);
  return new LogsQueryError("unavailable", `CloudWatch Logs ${operation} failed (${detail})`, { cause: error });
}
