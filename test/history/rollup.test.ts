/**
 * What one sighting adds to the rollups (shared/snapshots/rollup.ts), pure: the day split at midnight, gaps, and
 * the events decided later than in a release's own report (at the first audit past the threshold).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { HealthStatus } from "../../shared/health/index.ts";
import { defaultRules } from "../../shared/snapshots/reliability.ts";
import { type DayFigures, foldSighting, type SightingBefore } from "../../shared/snapshots/rollup.ts";

const MIN = 60_000;
const rules = defaultRules(5 * MIN);
const T0 = Date.parse("2027-03-01T23:50:00Z");
const at = (minutes: number) => T0 + minutes * MIN;

/** Folds audits every 5 minutes (minute, health, revision), as the worker would, and sums the days. */
function fold(audits: [number, HealthStatus, number][]): Map<string, DayFigures> {
  const days = new Map<string, DayFigures>();
  let before: SightingBefore | undefined;
  for (const [minute, health, revision] of audits) {
    const created = !before || before.health !== health || before.revision !== revision;
    const figures = foldSighting({ health, revision, at: at(minute), created, ...(before ? { before } : {}) }, rules);
    for (const [day, fields] of figures.days) {
      const sum = days.get(day) ?? {};
      for (const [field, value] of Object.entries(fields)) {
        sum[field as keyof DayFigures] = (sum[field as keyof DayFigures] ?? 0) + value;
      }
      days.set(day, sum);
    }
    const first = created || !before ? at(minute) : before.firstSeenAt;
    before = {
      health,
      revision,
      firstSeenAt: first,
      lastSeenAt: at(minute),
      state: created ? figures.state : before!.state,
    };
  }
  return days;
}

test("time is split at midnight; a silence over the gap threshold adds nothing", () => {
  const days = fold([
    [0, "Current", 2],
    [5, "Current", 2],
    [10, "Current", 2], // crosses midnight (23:50 + 10 = 00:00)
    [15, "Current", 2],
    [30, "Current", 2], // 15 minutes of silence: a gap
  ]);
  assert.deepEqual(days.get("2027-03-01"), { covered: 10 * MIN, Current: 10 * MIN, releases: 1 });
  assert.deepEqual(days.get("2027-03-02"), { covered: 5 * MIN, Current: 5 * MIN, releases: 1 });
});

test("a long rollout becomes an incident at the first audit past 15 minutes, on the day it began, and fails its deploy", () => {
  const days = fold([
    [0, "Current", 2],
    [5, "InProgress", 3], // a deploy (23:55) starts a rollout
    [10, "InProgress", 3],
    [15, "InProgress", 3],
    [20, "InProgress", 3], // 15 minutes in: not yet
    [25, "InProgress", 3], // 20 minutes in: an incident, the deploy failed
    [30, "Current", 3], // recovered after 25 minutes
  ]);
  const first = days.get("2027-03-01")!;
  assert.deepEqual(
    {
      incidents: first.incidents,
      recovered: first.recovered,
      recoveryMs: first.recoveryMs,
      deploys: first.deploys,
      failed: first.failedDeploys,
      pending: first.pendingDeploys,
    },
    { incidents: 1, recovered: 1, recoveryMs: 25 * MIN, deploys: 1, failed: 1, pending: 0 },
  );
  assert.equal(days.get("2027-03-02")!.InProgress, 20 * MIN);
});

test("a deploy stays pending until the first audit after its hour; a short rollout is no incident", () => {
  const audits: [number, HealthStatus, number][] = [[0, "Current", 2]];
  audits.push([5, "InProgress", 3], [10, "Current", 3]);
  for (let m = 15; m <= 60; m += 5) audits.push([m, "Current", 3]);
  assert.equal(fold(audits).get("2027-03-01")!.pendingDeploys, 1, "55 minutes after the deploy");
  audits.push([65, "Current", 3], [70, "Current", 3]);
  const first = fold(audits).get("2027-03-01")!;
  assert.equal(first.pendingDeploys, 0, "decided at the first audit past 00:55");
  assert.equal(first.failedDeploys, undefined);
  assert.equal(first.incidents, undefined);
});

test("flaps: a health change within 15 minutes of the previous one", () => {
  const days = fold([
    [0, "Current", 2],
    [5, "Failed", 2], // the first change: no flap
    [10, "Current", 2], // 5 minutes later: a flap
    [30, "Failed", 2], // silence before (a gap), 20 minutes after the last change: no flap
    [35, "Current", 2], // a flap
  ]);
  const flaps = [...days.values()].reduce((sum, d) => sum + (d.flaps ?? 0), 0);
  assert.equal(flaps, 2);
});
