/**
 * The reliability figures against timelines computed by hand (minutes after 2026-01-01T00:00Z, audits every
 * 5 minutes, so a silence over 7.5 minutes is a gap). Each case writes out the pieces it expects.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { HealthStatus } from "../../shared/health/index.ts";
import {
  addTotals,
  defaultRules,
  deriveRatios,
  emptyTotals,
  releaseReliability,
} from "../../shared/snapshots/reliability.ts";
import { buildTimeline, type TimelineSnapshot } from "../../shared/snapshots/timeline.ts";
import { run } from "./fixtures.ts";

const MIN = 60_000;
const T0 = Date.parse("2026-01-01T00:00:00Z");
const at = (minutes: number) => new Date(T0 + minutes * MIN).toISOString();
const rules = defaultRules(5 * MIN);

/** A snapshot created by the run of minute `slot`, seen from `first` to `last` (minutes), `seen` times. */
function snap(
  slot: number,
  first: number,
  last: number,
  seen: number,
  health: HealthStatus,
  revision: number,
): TimelineSnapshot {
  return {
    id: `eu.shop.api@${run(slot)}`,
    runId: run(slot),
    firstSeenAt: at(first),
    lastSeenAt: at(last),
    seenCount: seen,
    revision,
    health: { overall: health },
  };
}

function report(snapshots: TimelineSnapshot[], since: number, until: number, now = until) {
  return releaseReliability(
    snapshots,
    { since: T0 + since * MIN, until: T0 + until * MIN, now: T0 + now * MIN },
    rules,
  );
}

const minutes = (ms: number | null) => (ms === null ? null : ms / MIN);

describe("reliability of one release", () => {
  // Installed (rev 1, Current 0..60), upgraded to rev 2 which fails (65..80), fixed in place (Current 85..120),
  // audits stop for an hour (gap 120..180), then Current again (180..240); now = 242.
  const incidentAndGap = [
    snap(0, 0, 60, 13, "Current", 1),
    snap(65, 65, 80, 4, "Failed", 2),
    snap(85, 85, 120, 8, "Current", 2),
    snap(180, 180, 240, 13, "Current", 2),
  ];

  test("an incident, a gap and an install: every figure by hand", () => {
    const r = report(incidentAndGap, 0, 242);
    // Current: 0..65 (held to B) + 85..120 + 180..242 (held 2 min past the last audit) = 65 + 35 + 62.
    // Failed: 65..85 (held to C). The gap 120..180 is in neither.
    assert.equal(minutes(r.totals.timeInHealthMs.Current), 162);
    assert.equal(minutes(r.totals.timeInHealthMs.Failed), 20);
    assert.equal(minutes(r.totals.coveredMs), 182);
    assert.equal(minutes(r.totals.windowMs), 242);
    const ratios = deriveRatios(r.totals);
    assert.equal(ratios.coverage, 182 / 242);
    assert.equal(ratios.availability, 162 / 182);
    assert.deepEqual(r.incidents, [
      {
        start: at(65),
        end: at(85),
        durationMs: 20 * MIN,
        worst: "Failed",
        snapshotId: incidentAndGap[1].id,
        acrossGap: false,
      },
    ]);
    assert.equal(minutes(ratios.mttrMs), 20);
    assert.equal(minutes(ratios.mtbfMs), 162);
    assert.equal(r.totals.flaps, 0, "the recovery came 20 minutes after the failure: not a flap");
    assert.deepEqual(
      r.deploys.map((d) => [d.revision, d.at, d.failed, d.pending]),
      [
        [1, at(0), false, false],
        [2, at(65), true, false],
      ],
    );
    assert.equal(ratios.changeFailureRate, 1 / 2);
    assert.equal(r.firstObservedAt, at(0));
  });

  test("a window cut through the history counts only its part; an incident begun before it is not counted", () => {
    const r = report(incidentAndGap, 70, 200, 242);
    // Failed 70..85, Current 85..120 and 180..200; gap 120..180.
    assert.equal(minutes(r.totals.timeInHealthMs.Failed), 15);
    assert.equal(minutes(r.totals.timeInHealthMs.Current), 55);
    assert.equal(minutes(r.totals.coveredMs), 70);
    assert.equal(r.totals.incidents, 0);
    assert.equal(deriveRatios(r.totals).mttrMs, null);
    assert.equal(r.totals.deploys, 0);
  });

  test("a flapping release: every change within 15 minutes of the previous one is a flap", () => {
    const flapping = [
      snap(0, 0, 0, 1, "Current", 3),
      snap(5, 5, 5, 1, "Failed", 3),
      snap(10, 10, 10, 1, "Current", 3),
      snap(15, 15, 15, 1, "Failed", 3),
      snap(20, 20, 40, 5, "Current", 3),
    ];
    const r = report(flapping, 0, 40);
    assert.equal(minutes(r.totals.timeInHealthMs.Current), 30); // 0..5, 10..15, 20..40
    assert.equal(minutes(r.totals.timeInHealthMs.Failed), 10); // 5..10, 15..20
    assert.equal(deriveRatios(r.totals).coverage, 1);
    assert.equal(r.totals.flaps, 3, "the changes at 10, 15 and 20 each came 5 minutes after the one before");
    assert.equal(r.totals.incidents, 2);
    assert.equal(minutes(deriveRatios(r.totals).mttrMs), 5);
    assert.equal(minutes(deriveRatios(r.totals).mtbfMs), 15);
    assert.equal(r.totals.deploys, 0, "revision 3 was there before the history began");
    assert.equal(deriveRatios(r.totals).changeFailureRate, null);
  });

  test("clock skew: history order is the run ids', an overlap starts where the previous snapshot ends", () => {
    // The Failed snapshot's first sighting came from a worker whose clock was 6 minutes behind (29 instead of 35),
    // before the previous snapshot's last sighting (31, a clock 1 minute ahead). Given out of order on purpose.
    const skewed = [
      snap(45, 45, 60, 4, "Current", 2),
      snap(35, 29, 40, 2, "Failed", 2),
      snap(0, 0, 31, 7, "Current", 2),
    ];
    const timeline = buildTimeline(skewed, T0 + 60 * MIN, rules);
    assert.deepEqual(
      timeline.pieces.map((p) => [p.health, (p.start - T0) / MIN, (p.end - T0) / MIN, p.covered]),
      [
        ["Current", 0, 31, 1],
        // 31..40 seen twice: two sightings account for at most one gap threshold (7.5 of the 9 minutes).
        ["Failed", 31, 40, 7.5 / 9],
        ["Failed", 40, 45, 1],
        ["Current", 45, 60, 1],
      ],
    );
    const r = report(skewed, 0, 60);
    assert.equal(minutes(r.totals.timeInHealthMs.Failed), 12.5);
    assert.equal(minutes(r.totals.timeInHealthMs.Current), 46);
    assert.ok(r.totals.coveredMs <= r.totals.windowMs, "no time is counted twice");
    assert.deepEqual(
      r.incidents.map((i) => [i.start, i.end]),
      [[at(31), at(45)]],
    );
  });

  test("audits missing inside one snapshot's stretch are not covered", () => {
    // Seen 3 times from 0 to 120: at most 2 x 7.5 minutes are accounted for.
    const r = report([snap(0, 0, 120, 3, "Current", 4)], 0, 120);
    assert.equal(minutes(r.totals.coveredMs), 15);
    assert.equal(deriveRatios(r.totals).availability, 1);
    assert.equal(deriveRatios(r.totals).coverage, 15 / 120);
  });

  test("a rollout's short InProgress is no incident, a long one is; an open incident has no end", () => {
    const history = [
      snap(0, 0, 30, 7, "Current", 1),
      snap(35, 35, 45, 3, "InProgress", 2), // until 50: 15 minutes, not longer than 15
      snap(50, 50, 60, 3, "Current", 2),
      snap(65, 65, 100, 8, "InProgress", 3), // until 105: 40 minutes
      snap(105, 105, 110, 2, "Current", 3),
      snap(115, 115, 130, 4, "Failed", 3),
    ];
    const r = report(history, 0, 130);
    assert.deepEqual(
      r.incidents.map((i) => [i.start, i.end ?? null, i.worst]),
      [
        [at(65), at(105), "InProgress"],
        [at(115), null, "Failed"],
      ],
    );
    assert.equal(r.totals.recovered, 1);
    assert.equal(minutes(deriveRatios(r.totals).mttrMs), 40);
    // rev 1 (install) and rev 2 are fine; rev 3's incident started within its hour.
    assert.deepEqual(
      r.deploys.map((d) => [d.revision, d.failed, d.pending]),
      [
        [1, false, false],
        [2, false, false],
        [3, true, false],
      ],
    );
  });

  test("a deploy whose hour has not passed and saw nothing yet is pending, outside the rate", () => {
    const r = report([snap(0, 0, 100, 21, "Current", 4), snap(105, 105, 120, 4, "Current", 5)], 0, 120);
    assert.deepEqual(
      r.deploys.map((d) => [d.revision, d.pending]),
      [[5, true]],
    );
    assert.equal(deriveRatios(r.totals).changeFailureRate, null);
  });

  test("an incident across a gap says so", () => {
    const r = report([snap(0, 0, 10, 3, "Failed", 1), snap(60, 60, 70, 3, "Current", 1)], 0, 70);
    assert.equal(r.incidents[0].acrossGap, true);
    assert.equal(minutes(r.totals.coveredMs), 20); // 0..10 and 60..70; 10..60 is a gap
  });

  test("no snapshots: nothing covered, no ratios", () => {
    const r = report([], 0, 60);
    assert.equal(r.totals.coveredMs, 0);
    assert.deepEqual(deriveRatios(r.totals), {
      availability: null,
      coverage: 0,
      mttrMs: null,
      mtbfMs: null,
      changeFailureRate: null,
    });
    assert.equal(r.firstObservedAt, undefined);
  });

  test("totals add up across releases and the ratios come from the sums", () => {
    const a = report([snap(0, 0, 60, 13, "Current", 1)], 0, 60).totals;
    const b = report([snap(0, 0, 30, 7, "Failed", 1), snap(35, 35, 60, 6, "Current", 1)], 0, 60).totals;
    const sum = addTotals(addTotals(emptyTotals(), a), b);
    assert.equal(minutes(sum.windowMs), 120);
    assert.equal(deriveRatios(sum).availability, (60 + 25) / 120);
    assert.equal(sum.incidents, 1);
  });
});

test("an incident says why: the first cause chain the audits kept during it (issue #33)", () => {
  const failing = { ...snap(65, 65, 80, 4, "Failed", 2), causes: [{ text: "Deployment api Failed → … exit code 1" }] };
  const r = report([snap(0, 0, 60, 13, "Current", 1), failing, snap(85, 85, 120, 8, "Current", 2)], 0, 120);
  assert.equal(r.incidents.length, 1);
  assert.equal(r.incidents[0].cause, "Deployment api Failed → … exit code 1");
  const quiet = report([snap(0, 0, 60, 13, "Current", 1), snap(65, 65, 80, 4, "Failed", 2)], 0, 90);
  assert.equal(quiet.incidents[0].cause, undefined);
});
