/** The fleet's monthly bill (bench/scale-cost.ts): a pure function of measured per-period usage and list prices. */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  type FleetModel,
  monthlyBill,
  monthlyUsage,
  PERIODS_PER_MONTH_AT_5_MIN,
  PRICES_US_EAST_1,
  perClusterOf,
} from "../../bench/scale-cost.ts";

const none = { invocations: 0, gbSeconds: 0, sqsRequests: 0, readUnits: 0, writeUnits: 0 };
const close = (actual: number, expected: number) =>
  assert.ok(Math.abs(actual - expected) < 1e-9 * Math.max(1, expected), `${actual} != ${expected}`);

test("usage: each period's fixed part once and its per-cluster part times the clusters, every period of the month", () => {
  const model: FleetModel = {
    periods: [
      { name: "sync", perMonth: 10, fixed: { ...none, invocations: 1 }, perCluster: { ...none, gbSeconds: 2 } },
      { name: "audit", perMonth: 20, fixed: { ...none, invocations: 1 }, perCluster: { ...none, writeUnits: 3 } },
    ],
    storedBytesPerCluster: 0,
  };
  assert.deepEqual(monthlyUsage(model, 5), { ...none, invocations: 30, gbSeconds: 100, writeUnits: 300 });
});

test("bill: Lambda, SQS, DynamoDB requests and storage at the named prices; per cluster is the total over clusters", () => {
  const perCluster = { invocations: 2, gbSeconds: 3, sqsRequests: 4, readUnits: 5, writeUnits: 6 };
  const model: FleetModel = {
    periods: [{ name: "audit", perMonth: 1000, fixed: none, perCluster }],
    storedBytesPerCluster: 2e9,
  };
  const bill = monthlyBill(model, 10);
  const p = PRICES_US_EAST_1;
  close(bill.lambda, 10 * 1000 * (3 * p.lambdaGbSecond + 2 * p.lambdaRequest));
  close(bill.sqs, 10 * 1000 * 4 * p.sqsRequest);
  close(bill.dynamoRequests, 10 * 1000 * (5 * p.dynamoReadUnit + 6 * p.dynamoWriteUnit));
  close(bill.dynamoStorage, 20 * p.dynamoGbMonth);
  close(bill.total, bill.lambda + bill.sqs + bill.dynamoRequests + bill.dynamoStorage);
  close(bill.perCluster, bill.total / 10);
  assert.equal(monthlyBill(model, 0).perCluster, 0);
});

test("prices are us-east-1 list prices: a million Lambda GB-s, requests, RRU and WRU", () => {
  close(PRICES_US_EAST_1.lambdaGbSecond * 1e6, 16.6667);
  close(PRICES_US_EAST_1.lambdaRequest * 1e6, 0.2);
  close(PRICES_US_EAST_1.sqsRequest * 1e6, 0.4);
  close(PRICES_US_EAST_1.dynamoReadUnit * 1e6, 0.125);
  close(PRICES_US_EAST_1.dynamoWriteUnit * 1e6, 0.625);
  assert.equal(PERIODS_PER_MONTH_AT_5_MIN, 8640);
});

test("per cluster: the measured period minus its fixed part, over the clusters (never negative)", () => {
  const measured = { invocations: 101, gbSeconds: 50, sqsRequests: 200, readUnits: 1000, writeUnits: 0 };
  assert.deepEqual(perClusterOf(measured, { ...none, invocations: 1, writeUnits: 5 }, 100), {
    invocations: 1,
    gbSeconds: 0.5,
    sqsRequests: 2,
    readUnits: 10,
    writeUnits: 0,
  });
});
