/**
 * The monthly bill of a fleet (issue #36), from the scale bench's measured figures: a pure function of what one
 * sync period and one audit period cost per cluster (Lambda invocations and GB-seconds, SQS requests, DynamoDB
 * read and write units, as the bench measured them), the stored bytes, and AWS's us-east-1 list prices.
 * Every input is a bench output (docs/scale.md says which line); nothing here is estimated.
 */

/**
 * us-east-1 list prices in USD, as AWS's pricing pages state them (docs/scale.md names each page); last changed
 * 2024-11-01 (DynamoDB on-demand halved). Free tiers are left out: a fleet of 100 clusters outgrows them.
 */
export const PRICES_US_EAST_1 = {
  asOf: "2026-12-04 (list prices unchanged since 2024-11-01)",
  /** AWS Lambda, x86: per GB-second of duration, per request. */
  lambdaGbSecond: 0.0000166667,
  lambdaRequest: 0.2 / 1e6,
  /** Amazon SQS standard queue: per request (64 KB chunk). */
  sqsRequest: 0.4 / 1e6,
  /** DynamoDB on-demand (Standard table class): per read request unit, per write request unit, per GB-month. */
  dynamoReadUnit: 0.125 / 1e6,
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoGbMonth: 0.25,
  /** API Gateway HTTP API: per request (first 300 million a month). */
  httpApiRequest: 1.0 / 1e6,
  /** CloudWatch Logs Insights: per GB scanned (issue #34's lookups). */
  logsInsightsGbScanned: 0.005,
  /** EventBridge scheduled rules (serverless.yml's `schedule` events) are not charged. */
  eventBridgeScheduledRule: 0,
};

export type Prices = typeof PRICES_US_EAST_1;

/** What one period of one function family costs in units (the bench's figures for a period). */
export interface PeriodUsage {
  invocations: number;
  /** Billed duration x configured memory. */
  gbSeconds: number;
  sqsRequests: number;
  readUnits: number;
  writeUnits: number;
}

/** The measured model: per period, what does not depend on the fleet (one scheduler/planner run) and per cluster. */
export interface FleetModel {
  /** Sync period and audit period, each: the fixed part (the schedule's invocation) and per cluster. */
  periods: Array<{ name: string; perMonth: number; fixed: PeriodUsage; perCluster: PeriodUsage }>;
  /** Bytes stored per cluster (both tables), as measured. */
  storedBytesPerCluster: number;
}

export interface MonthlyBill {
  clusters: number;
  lambda: number;
  sqs: number;
  dynamoRequests: number;
  dynamoStorage: number;
  total: number;
  perCluster: number;
}

const ZERO: PeriodUsage = { invocations: 0, gbSeconds: 0, sqsRequests: 0, readUnits: 0, writeUnits: 0 };

/** The usage of a month for `clusters` clusters: each period's fixed part plus clusters x its per-cluster part. */
export function monthlyUsage(model: FleetModel, clusters: number): PeriodUsage {
  const total = { ...ZERO };
  for (const period of model.periods) {
    for (const key of Object.keys(total) as (keyof PeriodUsage)[]) {
      total[key] += period.perMonth * (period.fixed[key] + clusters * period.perCluster[key]);
    }
  }
  return total;
}

export function monthlyBill(model: FleetModel, clusters: number, prices: Prices = PRICES_US_EAST_1): MonthlyBill {
  const usage = monthlyUsage(model, clusters);
  const lambda = usage.gbSeconds * prices.lambdaGbSecond + usage.invocations * prices.lambdaRequest;
  const sqs = usage.sqsRequests * prices.sqsRequest;
  const dynamoRequests = usage.readUnits * prices.dynamoReadUnit + usage.writeUnits * prices.dynamoWriteUnit;
  const dynamoStorage = ((clusters * model.storedBytesPerCluster) / 1e9) * prices.dynamoGbMonth;
  const total = lambda + sqs + dynamoRequests + dynamoStorage;
  return {
    clusters,
    lambda,
    sqs,
    dynamoRequests,
    dynamoStorage,
    total,
    perCluster: clusters > 0 ? total / clusters : 0,
  };
}

/** The per-cluster part of a measured period: what N clusters used, the fixed part taken out, divided by N. */
export function perClusterOf(measured: PeriodUsage, fixed: PeriodUsage, clusters: number): PeriodUsage {
  const out = { ...ZERO };
  for (const key of Object.keys(out) as (keyof PeriodUsage)[]) {
    out[key] = Math.max(0, measured[key] - fixed[key]) / Math.max(1, clusters);
  }
  return out;
}

/** Five-minute schedules: 12 an hour, 24 hours, 30 days. */
export const PERIODS_PER_MONTH_AT_5_MIN = 12 * 24 * 30;
