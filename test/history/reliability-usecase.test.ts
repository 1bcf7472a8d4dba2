/**
 * The reliability and status-as-it-was use cases over a history written by the real rules (recordAudited on
 * the memory store): the report's window handling and bad input, and `status --at` between two audits, in a gap,
 * before the first audit, past retention and in the future.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { memoryHistoryStores } from "../../shared/snapshots/history-stores.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { reliabilityOfRelease } from "../../shared/usecases/reliability.ts";
import { reliabilityOfScope } from "../../shared/usecases/reliability-scope.ts";
import { diffAt, statusAt, statusAtText } from "../../shared/usecases/status-at.ts";
import { makeRelease } from "../store/fixtures.ts";
import { observe, recordAudited, run } from "./fixtures.ts";

const MIN = 60_000;
const T0 = Date.parse("2026-01-01T00:00:00Z");
const at = (minutes: number) => new Date(T0 + minutes * MIN).toISOString();

/**
 * shop/api on eu: Current every 5 minutes 0..60, Failed 65..80, Current 85..120, no audits 125..175 (a gap),
 * Current 180..240. Now = 242.
 */
async function history(options: { retentionDays?: number; nowMinutes?: number } = {}) {
  const stores = memoryHistoryStores();
  const releases = new MemoryReleaseStore();
  const api = { cluster: "eu", namespace: "shop", name: "api" };
  await releases.putRevision("eu", makeRelease({ name: "api", namespace: "shop", version: 2 }));
  await releases.putRevision("eu", makeRelease({ name: "quiet", namespace: "shop" }));
  for (let m = 0; m <= 240; m += 5) {
    if (m > 120 && m < 180) continue;
    const failed = m >= 65 && m <= 80;
    // The gap's far side differs (revision 3) so it is a new snapshot, as after an upgrade nobody audited.
    await recordAudited(
      stores,
      observe(api, run(m), { podHealth: failed ? "Failed" : "Current", revision: m >= 180 ? 3 : 2 }),
      options.retentionDays ?? 90,
    );
  }
  const now = new Date(T0 + (options.nowMinutes ?? 242) * MIN);
  const deps = {
    snapshots: stores.snapshots,
    rollups: stores.rollups,
    auditRuns: stores.auditRuns,
    releases,
    clusters: "any" as const,
    clock: { now: () => now },
    settings: { auditIntervalSeconds: 300, retentionDays: options.retentionDays ?? 90 },
  };
  return { deps, api };
}

describe("reliability report use case", () => {
  test("a release's report from its stored history, numbers by hand", async () => {
    const { deps, api } = await history();
    const report = await reliabilityOfRelease(deps, api, { since: at(0) });
    // Current: 0..65, 85..120, 180..242 = 162 min; Failed 65..85 = 20 min; 120..180 a gap.
    assert.equal(report.timeInHealthMs.Current, 162 * MIN);
    assert.equal(report.timeInHealthMs.Failed, 20 * MIN);
    assert.equal(report.coverage, 182 / 242);
    assert.equal(report.availability, 162 / 182);
    assert.deepEqual(report.incidents, { count: 1, recovered: 1, open: 0 });
    assert.equal(report.mttrMs, 20 * MIN);
    assert.deepEqual(
      report.deployList.map((d) => [d.revision, d.at]),
      [[3, at(180)]],
    );
    assert.deepEqual(report.notes, []);
    assert.equal(report.rules.gapAfterMs, 7.5 * MIN);
  });

  test("a window longer than retention answers for the covered part and says so", async () => {
    const { deps, api } = await history({ retentionDays: 1 });
    const report = await reliabilityOfRelease(deps, api, { since: "30d" });
    assert.equal(report.window.observedSince, new Date(T0 + 242 * MIN - 86_400_000).toISOString());
    assert.match(report.notes[0], /before the history's retention \(1 days\)/);
    assert.match(report.notes[1], /first saw this release at 2026-01-01T00:00:00.000Z/);
    assert.equal(report.availability, 162 / 182);
  });

  test("bad windows are 400s: since after until, a time that is none, since in the future", async () => {
    const { deps, api } = await history();
    await assert.rejects(reliabilityOfRelease(deps, api, { since: at(100), until: at(50) }), {
      code: "InvalidHistoryQuery",
      message: /since \(2026-01-01T01:40:00.000Z\) is not before until/,
    });
    await assert.rejects(reliabilityOfRelease(deps, api, { since: "yesterday" }), { kind: "validation" });
    await assert.rejects(reliabilityOfRelease(deps, api, { since: at(300), until: at(400) }), {
      message: /is in the future/,
    });
  });

  test("an unknown release is a 404; a release with no audits yet is an empty report that says so", async () => {
    const { deps } = await history();
    await assert.rejects(reliabilityOfRelease(deps, { cluster: "eu", namespace: "shop", name: "nope" }, {}), {
      code: "ReleaseNotFound",
    });
    const quiet = await reliabilityOfRelease(deps, { cluster: "eu", namespace: "shop", name: "quiet" }, {});
    assert.equal(quiet.coverage, 0);
    assert.equal(quiet.availability, null);
    assert.match(quiet.notes.join("\n"), /no audits of this release yet/);
  });

  test("the fleet's report adds the releases up and lists the worst first", async () => {
    const { deps, api } = await history();
    const other = { cluster: "us", namespace: "web", name: "front" };
    for (let m = 0; m <= 240; m += 5) await recordAudited(deps, observe(other, run(m)), 90);
    const fleet = await reliabilityOfScope(deps, { since: at(0) });
    assert.equal(fleet.releases, 2);
    // api: 160 of 180 covered minutes Current; front: 240 of 240 (the rollups count up to the latest audit, at
    // minute 240; a release's own report holds its health on to now, 242).
    assert.equal(fleet.availability, (160 + 240) / (180 + 240));
    assert.deepEqual(fleet.worst[0].release, api);
    assert.equal(fleet.incidents.count, 1);
    const us = await reliabilityOfScope(deps, { since: at(0), cluster: "us" });
    assert.equal(us.releases, 1);
    assert.equal(us.availability, 1);
    const demoChart = await reliabilityOfScope(deps, { since: at(0), chart: "demo" });
    assert.equal(demoChart.releases, 1, "only eu/shop/api is in the releases table, with chart demo");
    const none = await reliabilityOfScope(deps, { since: at(0), chart: "other" });
    assert.equal(none.releases, 0);
    assert.equal(none.availability, null);
  });
});

describe("status as it was (--at)", () => {
  test("a time between two audits answers what the earlier one saw, with a first line naming it", async () => {
    const { deps, api } = await history();
    const result = await statusAt(deps, api, at(67.5));
    assert.equal(result.snapshot.id, `eu.shop.api@${run(65)}`);
    assert.equal(result.coverage, "observed");
    assert.equal(result.snapshot.health.overall, "Failed");
    const text = statusAtText(result);
    assert.equal(
      text.split("\n")[0],
      `SNAPSHOT: eu.shop.api@${run(65)} as of ${at(67.5)} (first seen ${at(65)}, last seen ${at(80)}, seen 4 times)`,
    );
    assert.equal(text.split("\n").slice(1).join("\n"), "NAME: api\nHEALTH: Failed\n");
    // After the last sighting, within the gap threshold: the state last seen, and it says so.
    const held = await statusAt(deps, api, at(82));
    assert.equal(held.coverage, "held");
    assert.match(held.header, /the next audit was not due yet\)$/);
    // `-2h` is two hours ago (now is minute 242): minute 122, just after 120's last sighting.
    assert.equal((await statusAt(deps, api, "-2h")).snapshot.id, `eu.shop.api@${run(85)}`);
  });

  test("no coverage is a clear 404: a gap, before the first audit, past retention, no audits yet", async () => {
    const { deps, api } = await history();
    await assert.rejects(statusAt(deps, api, at(150)), {
      code: "NoSnapshotCoverage",
      message: /the audits did not look then \(a gap: eu.shop.api@20260101T012500Z was last seen at/,
    });
    await assert.rejects(statusAt(deps, api, at(-30)), { message: /before the first retained audit/ });
    await assert.rejects(statusAt(deps, api, "100d"), { message: /past the history's retention \(90 days/ });
    await assert.rejects(statusAt(deps, { ...api, name: "quiet" }, at(10)), { message: /has not been audited yet/ });
    await assert.rejects(statusAt(deps, { ...api, name: "nope" }, at(10)), { code: "ReleaseNotFound" });
    await assert.rejects(statusAt(deps, api, at(300)), { code: "InvalidHistoryQuery", message: /is in the future/ });
  });

  test("--at A --against B is the snapshot diff of the two", async () => {
    const { deps, api } = await history();
    const diff = await diffAt(deps, api, at(70), at(30));
    assert.equal(diff.to, `eu.shop.api@${run(65)}`);
    assert.equal(diff.from, `eu.shop.api@${run(0)}`);
    assert.deepEqual(diff.changes[0], { kind: "health", from: "Current", to: "Failed" });
    assert.match(diff.diff, /-HEALTH: Current\n\+HEALTH: Failed/);
  });
});
