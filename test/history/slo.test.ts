/** The objective from a manifest and the multiwindow burn rates against hand-computed timelines. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { recordObservation } from "../../shared/audit/record.ts";
import { MemorySnapshotStore } from "../../shared/snapshots/memory-snapshot-store.ts";
import { objectiveFromManifest, sloReport } from "../../shared/snapshots/slo.ts";
import type { TimelinePiece } from "../../shared/snapshots/timeline.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { reliabilityOfRelease } from "../../shared/usecases/reliability.ts";
import { releaseReliabilityText } from "../../shared/usecases/reliability-text.ts";
import { makeRelease } from "../store/fixtures.ts";
import { observe, run } from "./fixtures.ts";

const MIN = 60_000;
const manifest = (meta: string) =>
  `---\n# Source: api/templates/deployment.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n${meta}`;

test("the objective: an annotation or a label, quoted or not; malformed or conflicting ones are ignored with a note", () => {
  assert.deepEqual(objectiveFromManifest(manifest('  annotations:\n    helm-status/slo: "99.5"\n')), {
    objective: 0.995,
  });
  assert.deepEqual(objectiveFromManifest(manifest("  labels:\n    helm-status/slo: '99.9'\n")), { objective: 0.999 });
  assert.deepEqual(objectiveFromManifest(manifest("  labels:\n    app: api\n")), {});
  assert.match(
    objectiveFromManifest(manifest('  annotations:\n    helm-status/slo: "high"\n')).note!,
    /ignored: "high" is not a percentage/,
  );
  assert.match(
    objectiveFromManifest(manifest('  annotations:\n    helm-status/slo: "100"\n')).note!,
    /not a percentage/,
  );
  assert.match(objectiveFromManifest(manifest('  annotations:\n    helm-status/slo: "0"\n')).note!, /not a percentage/);
  const twice = `${manifest('  annotations:\n    helm-status/slo: "99.5"\n')}${manifest('  annotations:\n    helm-status/slo: "99"\n')}`;
  assert.match(objectiveFromManifest(twice).note!, /2 different values/);
});

/** Pieces of one health each, minutes before `now` (0). */
const pieces = (...spans: [number, number, "Current" | "Failed"][]): TimelinePiece[] =>
  spans.map(([from, to, health]) => ({
    start: from * MIN,
    end: to * MIN,
    health,
    revision: 1,
    snapshotId: "s",
    covered: 1,
  }));

test("burn rates: bad share over the allowed share per window; page, ticket and ok", () => {
  // 99.5%: 0.5% allowed. Failed for the last 10 minutes of 3 days of Current.
  const fresh = sloReport(pieces([-4320, -10, "Current"], [-10, 0, "Failed"]), 0.995, {
    since: -4320 * MIN,
    until: 0,
    now: 0,
  });
  assert.equal(fresh.burnRates["5m"], 1 / 0.005); // all of the last 5 minutes bad: 200x
  assert.equal(fresh.burnRates["1h"], 33.3333); // 10 of 60 minutes over 0.5%
  assert.equal(fresh.burnRates["3d"], 0.463); // 10 of 4,320 minutes over 0.5%
  assert.equal(fresh.state, "page");
  // 3 days' budget at 99.5% is 21.6 minutes: 10 bad minutes leave 1 - 10/21.6 of it.
  assert.ok(Math.abs(fresh.budgetRemaining! - (1 - 10 / 21.6)) < 1e-9);
  // Failed 30 minutes, 5 hours ago: 6 h burns 16.7x but 30 min and 5 min are clean -> no page; 3 d burns 1.4x -> ticket.
  const earlier = sloReport(pieces([-4320, -330, "Current"], [-330, -300, "Failed"], [-300, 0, "Current"]), 0.995, {
    since: -4320 * MIN,
    until: 0,
    now: 0,
  });
  assert.equal(earlier.state, "ticket");
  assert.equal(earlier.burnRates["30m"], 0);
  const clean = sloReport(pieces([-4320, 0, "Current"]), 0.995, { since: -4320 * MIN, until: 0, now: 0 });
  assert.deepEqual([clean.state, clean.budgetRemaining], ["ok", 1]);
  assert.equal(sloReport([], 0.995, { since: -60 * MIN, until: 0, now: 0 }).burnRates["1h"], null);
});

test("the release report carries the SLO of its manifest's annotation, and says when it is malformed", async () => {
  const snapshots = new MemorySnapshotStore();
  const releases = new MemoryReleaseStore();
  const api = { cluster: "eu", namespace: "shop", name: "api" };
  const annotated = makeRelease({
    name: "api",
    namespace: "shop",
    manifest: manifest('  annotations:\n    helm-status/slo: "99.5"\n'),
  });
  await releases.putRevision("eu", annotated);
  // Current 0..50, Failed 55..60; now 62.
  for (let m = 0; m <= 60; m += 5) {
    await recordObservation(snapshots, observe(api, run(m), { podHealth: m >= 55 ? "Failed" : "Current" }), 90);
  }
  const deps = {
    snapshots,
    releases,
    clusters: "any" as const,
    clock: { now: () => new Date(Date.parse("2026-01-01T00:00:00Z") + 62 * MIN) },
    settings: { auditIntervalSeconds: 300, retentionDays: 90 },
  };
  const report = await reliabilityOfRelease(deps, api, { since: "1h" });
  assert.equal(report.slo?.objective, 0.995);
  assert.equal(report.slo?.source, "annotation");
  assert.equal(report.slo?.state, "page"); // the last 7 minutes of 62 Failed: 5 min and 1 h both far over 14.4
  assert.equal(report.slo?.burnRates["5m"], 200);
  assert.match(
    releaseReliabilityText(report),
    /^SLO\s+99\.500%: .* of the error budget left; burn 5m 200\.0, .* \(page\)$/m,
  );
  await releases.putRevision("eu", {
    ...annotated,
    version: 2,
    manifest: manifest('  annotations:\n    helm-status/slo: "lots"\n'),
  });
  const malformed = await reliabilityOfRelease(deps, api, { since: "1h" });
  assert.equal(malformed.slo, undefined);
  assert.match(malformed.notes.join("\n"), /helm-status\/slo ignored: "lots" is not a percentage/);
  // The registry's objective stands in for the malformed annotation, and the note still says why that was ignored.
  const registry = { list: () => [{ name: "eu", region: "eu-west-1", slo: { default: 0.9 } }] };
  const fromRegistry = await reliabilityOfRelease({ ...deps, clusters: registry }, api, { since: "1h" });
  assert.equal(fromRegistry.slo?.objective, 0.9);
  assert.equal(fromRegistry.slo?.source, "registry");
  // 7 of 62 covered minutes Failed against a 10% budget: 5 m burns 10x (under 14.4: no page), 6 h and 3 d 1.13x: a ticket.
  assert.equal(fromRegistry.slo?.state, "ticket");
  assert.equal(fromRegistry.slo?.burnRates["5m"], 10);
  assert.match(releaseReliabilityText(fromRegistry), /^SLO\s+90\.0% \(registry\): /m);
  assert.match(fromRegistry.notes.join("\n"), /helm-status\/slo ignored: "lots"/);
});
