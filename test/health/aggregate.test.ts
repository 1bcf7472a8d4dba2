import assert from "node:assert/strict";
import { test } from "node:test";
import {
  aggregateKstatus,
  HEALTH_RULESET,
  type HealthStatus,
  overallHealth,
  summarizeHealth,
} from "../../shared/health/index.ts";

// One line per case: member verdicts, the product's overall verdict, kstatus's own AggregateStatus.
const CASES: [HealthStatus[], HealthStatus, HealthStatus][] = [
  [[], "Current", "Current"],
  [["Current", "Current"], "Current", "Current"],
  [["Current", "InProgress"], "InProgress", "InProgress"],
  [["Current", "Terminating"], "InProgress", "InProgress"],
  [["Current", "Failed", "Unknown"], "Failed", "Failed"],
  [["Current", "Unknown", "InProgress"], "Unknown", "Unknown"],
  [["Current", "NotFound"], "Failed", "InProgress"],
  [["NotFound", "Unknown"], "Failed", "Unknown"],
  [["InProgress", "NotFound", "Failed"], "Failed", "Failed"],
];

for (const [statuses, overall, kstatus] of CASES) {
  test(`[${statuses.join(", ")}] -> ${overall} (kstatus ${kstatus})`, () => {
    assert.equal(overallHealth(statuses), overall);
    assert.equal(aggregateKstatus(statuses), kstatus);
  });
}

test("kstatus aggregation towards another desired status", () => {
  assert.equal(aggregateKstatus(["NotFound", "NotFound"], "NotFound"), "NotFound");
  assert.equal(aggregateKstatus(["NotFound", "Terminating"], "NotFound"), "InProgress");
});

test("the summary names the ruleset, counts each verdict and says what is not Current", () => {
  const summary = summarizeHealth(["Current", "Failed", "NotFound", "Current", "InProgress"]);
  assert.equal(summary.ruleset, HEALTH_RULESET);
  assert.equal(summary.ruleset, "kstatus");
  assert.equal(summary.status, "Failed");
  assert.deepEqual(summary.counts, {
    Current: 2,
    InProgress: 1,
    Failed: 1,
    Terminating: 0,
    NotFound: 1,
    Unknown: 0,
  });
  assert.equal(summary.message, "3 of 5 resources not Current: 1 InProgress, 1 Failed, 1 NotFound");
  assert.equal(summarizeHealth(["Current"]).message, "all 1 resource Current");
});
