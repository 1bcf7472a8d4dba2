/**
 * Logs Insights queries as the service runs them: StartQuery (validation, the concurrency limit), GetQueryResults
 * (Running until the configured latency has passed, then Complete), StopQuery; plus the error shape and parameter
 * checks every CloudWatch Logs operation of the simulator shares.
 */
import { randomUUID } from "node:crypto";
import type { LogRecord } from "./logs-filter.ts";
import { QuerySyntaxError } from "./logs-filter.ts";
import { type InsightsQuery, parseInsightsQuery, runInsightsQuery } from "./logs-insights.ts";

/** A service error: `{"__type": type, "message": message}` with status 400. */
export class LogsError extends Error {
  readonly type: string;
  constructor(type: string, message: string) {
    super(message);
    this.type = type;
  }
}

export const invalid = (message: string) => new LogsError("InvalidParameterException", message);

export function optionalInteger(
  value: unknown,
  name: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(
      `1 validation error detected: Value '${String(value)}' at '${name}' failed to satisfy constraint: Member must have value between ${min} and ${max}`,
    );
  }
  return value;
}

interface RunningQuery {
  startedAt: number;
  status: "Running" | "Complete" | "Cancelled";
  rows: Array<Array<{ field: string; value: string }>>;
  statistics: { recordsMatched: number; recordsScanned: number; bytesScanned: number };
}

export class InsightsQueries {
  private readonly queries = new Map<string, RunningQuery>();
  private readonly limits: () => { maxConcurrentQueries: number; queryLatencyMs: number };
  private readonly authNow: () => Date;

  constructor(limits: () => { maxConcurrentQueries: number; queryLatencyMs: number }, authNow: () => Date) {
    this.limits = limits;
    this.authNow = authNow;
  }

  /** StartQuery; `recordsOf` reads one named group's records in a window (ms) or throws its 400. */
  start(input: Record<string, unknown>, recordsOf: (name: unknown, from: number, to: number) => LogRecord[]): unknown {
    const names = [
      ...(input.logGroupName ? [input.logGroupName] : []),
      ...((input.logGroupNames as unknown[]) ?? []),
      ...((input.logGroupIdentifiers as unknown[]) ?? []),
    ];
    if (names.length === 0) throw invalid("Log group names or identifiers must be specified.");
    if (names.length > 50) throw invalid("A query can search at most 50 log groups.");
    const startTime = optionalInteger(input.startTime, "startTime", 0);
    const endTime = optionalInteger(input.endTime, "endTime", 0);
    if (startTime === undefined || endTime === undefined) throw invalid("startTime and endTime are required.");
    if (endTime < startTime) throw invalid("End time should not be before the start time.");
    const limit = optionalInteger(input.limit, "limit", 1, 10_000) ?? 10_000;
    const text = String(input.queryString ?? "");
    if (text.trim() === "" || text.length > 10_000) throw invalid("queryString must be 1 to 10000 characters.");
    let query: InsightsQuery;
    try {
      query = parseInsightsQuery(text);
    } catch (error) {
      if (!(error instanceof QuerySyntaxError)) throw error;
      throw new LogsError("MalformedQueryException", error.message);
    }
    // Insights' times are seconds; the end second is included.
    const records = names.flatMap((name) => recordsOf(name, startTime * 1000, endTime * 1000 + 999));
    const { maxConcurrentQueries } = this.limits();
    const running = [...this.queries.values()].filter((q) => this.statusOf(q) === "Running").length;
    if (running >= maxConcurrentQueries) {
      throw new LogsError(
        "LimitExceededException",
        `Account maximum query concurrency limit of [${maxConcurrentQueries}] reached. Please wait for running queries to complete and try again.`,
      );
    }
    const { rows, matched } = runInsightsQuery(query, records, limit);
    const id = randomUUID();
    this.queries.set(id, {
      startedAt: this.authNow().getTime(),
      status: "Running",
      rows,
      statistics: {
        recordsMatched: matched,
        recordsScanned: records.length,
        bytesScanned: records.reduce((sum, r) => sum + r.message.length, 0),
      },
    });
    return { queryId: id };
  }

  results(input: Record<string, unknown>): unknown {
    const query = this.find(input);
    const status = this.statusOf(query);
    return {
      queryLanguage: "CWLI",
      status,
      results: status === "Complete" ? query.rows : [],
      statistics: status === "Complete" ? query.statistics : { recordsMatched: 0, recordsScanned: 0, bytesScanned: 0 },
    };
  }

  stop(input: Record<string, unknown>): unknown {
    const query = this.find(input);
    if (this.statusOf(query) !== "Running") return { success: false };
    query.status = "Cancelled";
    return { success: true };
  }

  private find(input: Record<string, unknown>): RunningQuery {
    const query = this.queries.get(String(input.queryId ?? ""));
    if (!query) throw new LogsError("ResourceNotFoundException", "Query does not exist.");
    return query;
  }

  private statusOf(query: RunningQuery): RunningQuery["status"] {
    if (query.status === "Running" && this.authNow().getTime() - query.startedAt >= this.limits().queryLatencyMs)
      query.status = "Complete";
    return query.status;
  }
}
