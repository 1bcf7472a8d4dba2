/**
 * The RollupStore contract (run on both implementations): added once per message with its DONE
 * marker, read per day and cluster; and a fleet / cluster / namespace report from the rollups equal to the sum of
 * the per-release reports over a hand-built history (a gap, a flapping release, a long rollout after a deploy, a
 * day boundary, an open unhealthy stretch with a pending deploy).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { recordObservation, rollupFiguresOf } from "../../shared/audit/record.ts";
import type { HealthStatus } from "../../shared/health/index.ts";
import type { HistoryStores } from "../../shared/snapshots/history-stores.ts";
import { type Observation, runIdFor } from "../../shared/snapshots/model.ts";
import { addTotals, defaultRules, emptyTotals } from "../../shared/snapshots/reliability.ts";
import { type RollupDay, rollupAdds } from "../../shared/snapshots/rollup-items.ts";
import { figuresOf, reliabilityOfRelease } from "../../shared/usecases/reliability.ts";
import { reliabilityOfScope } from "../../shared/usecases/reliability-scope.ts";
import { observe } from "./fixtures.ts";

const MIN = 60_000;
const DAY_MS = 86_400_000;
const tally = { done: 1, failed: 0, unhealthy: 0, changed: 0 };

/** The rollups are written with an audit message's completion and read back through their own port. */
type RollupStores = Pick<HistoryStores, "snapshots" | "auditRuns" | "rollups">;

export function rollupContract(label: string, makeStores: () => Promise<RollupStores>) {
  describe(`${label}: rollups`, () => {
    test("a message's rollups are added once with its DONE marker, read per day and cluster", async () => {
      const { auditRuns, rollups } = await makeStores();
      const runId = `20260301T000000Z-r${process.pid}`;
      await auditRuns.startRun(runId, "2026-03-01T00:00:00.000Z");
      const cluster = `rc${process.pid}`;
      const adds: RollupDay[] = [
        {
          day: "2026-03-01",
          cluster,
          values: { "t|c": 300_000, "t|F": 60_000, "n|shop|c": 300_000 },
        },
        { day: "2026-03-02", cluster, values: { "t|d": 1, "w|shop|api": 60_000 } },
      ];
      assert.equal(await auditRuns.completeMessage(runId, "p-0", tally, "2026-03-01T00:00:01.000Z", adds), true);
      // Redelivered: the marker exists, nothing is added again.
      assert.equal(await auditRuns.completeMessage(runId, "p-0", tally, "2026-03-01T00:00:02.000Z", adds), false);
      assert.equal(await auditRuns.completeMessage(runId, "p-1", tally, "2026-03-01T00:00:03.000Z", [adds[0]]), true);
      const now = new Date("2026-03-02T12:00:00Z");
      const both = await rollups.rollups(["2026-03-01", "2026-03-02", "2026-03-03"], cluster, now);
      assert.deepEqual(both, [
        {
          day: "2026-03-01",
          cluster,
          values: { "t|c": 600_000, "t|F": 120_000, "n|shop|c": 600_000 },
        },
        { day: "2026-03-02", cluster, values: { "t|d": 1, "w|shop|api": 60_000 } },
      ]);
      assert.deepEqual(await rollups.rollups(["2026-03-02"], "other", now), []);
      const all = await rollups.rollups(["2026-03-02"], undefined, now);
      assert.deepEqual(
        all.filter((r) => r.cluster === cluster),
        [both[1]],
      );
    });

    test("a message touching more days than one transaction holds adds every one of them", async () => {
      const { auditRuns, rollups } = await makeStores();
      const runId = `20260401T000000Z-m${process.pid}`;
      await auditRuns.startRun(runId, "2026-04-01T00:00:00.000Z");
      const cluster = `many-${process.pid}`;
      const start = Date.parse("2026-01-01T00:00:00Z");
      const days = Array.from({ length: 120 }, (_, i) => new Date(start + i * DAY_MS).toISOString().slice(0, 10));
      const adds: RollupDay[] = days.map((day) => ({ day, cluster, values: { "t|r": 1, "t|m": 60_000 } }));
      assert.equal(await auditRuns.completeMessage(runId, "p-0", tally, "2026-04-01T00:00:01.000Z", adds), true);
      assert.equal(await auditRuns.completeMessage(runId, "p-0", tally, "2026-04-01T00:00:02.000Z", adds), false);
      const read = await rollups.rollups(days, cluster, new Date("2026-03-01T00:00:00Z"));
      assert.equal(read.length, 120);
      assert.ok(read.every((r) => r.values["t|r"] === 1 && r.values["t|m"] === 60_000));
    });

    test("a message redelivered after its writes but before its DONE marker adds the same as one delivered once", async () => {
      const { snapshots, auditRuns, rollups } = await makeStores();
      const rules = defaultRules(5 * MIN);
      const T0 = Date.parse("2027-02-01T10:00:00Z");
      // Two releases with the same history in two clusters; the second's messages all fail once before completing.
      const once = { cluster: `once-${process.pid}`, namespace: "shop", name: "api" };
      const twice = { cluster: `twice-${process.pid}`, namespace: "shop", name: "api" };
      const healths: HealthStatus[] = ["Current", "Current", "Failed", "Failed", "Current", "Current"];
      for (const [i, health] of healths.entries()) {
        const at = new Date(T0 + i * 5 * MIN);
        const runId = runIdFor(at);
        await auditRuns.startRun(runId, at.toISOString());
        for (const release of [once, twice]) {
          const observation: Observation = {
            ...observe(release, runId, { podHealth: health === "Failed" ? "Failed" : "Current" }),
            revision: i >= 2 ? 3 : 2,
          };
          const deliveries = release === twice ? 2 : 1;
          for (let d = 0; d < deliveries; d++) {
            const result = await recordObservation(snapshots, observation, 90, { rules });
            if (d === 0 && deliveries === 2) continue; // the worker died before completing the message
            if (deliveries === 2) assert.equal(result.outcome, "duplicate");
            const figures = await rollupFiguresOf(snapshots, result, runId, at, rules);
            const adds = rollupAdds(release.cluster, figures ? [{ release, figures }] : []);
            assert.equal(await auditRuns.completeMessage(runId, release.cluster, tally, at.toISOString(), adds), true);
          }
        }
      }
      const days = ["2027-02-01"];
      const [a] = await rollups.rollups(days, once.cluster, new Date(T0 + DAY_MS));
      const [b] = await rollups.rollups(days, twice.cluster, new Date(T0 + DAY_MS));
      assert.deepEqual(b.values, a.values);
      assert.deepEqual(
        { covered: a.values["t|c"], failed: a.values["t|F"], incidents: a.values["t|i"], deploys: a.values["t|d"] },
        { covered: 25 * MIN, failed: 10 * MIN, incidents: 1, deploys: 1 },
      );
    });

    test("fleet, cluster and namespace reports from the rollups equal the per-release reports added up", async () => {
      const { snapshots, auditRuns, rollups } = await makeStores();
      const suffix = `h${process.pid}`;
      const api = { cluster: `eu-${suffix}`, namespace: "shop", name: "api" };
      const web = { cluster: `eu-${suffix}`, namespace: "shop", name: "web" };
      const db = { cluster: `us-${suffix}`, namespace: "data", name: "db" };
      // 2027-01-01 22:00 to 2027-01-02 02:00, audits every 5 minutes; each release's health and revision by minute.
      const T0 = Date.parse("2027-01-01T22:00:00Z");
      const END = 240;
      const plan: Record<string, (m: number) => { health: HealthStatus; revision: number } | undefined> = {
        // Failed 30..45; a deploy at 60 rolls out for 25 minutes (a long InProgress: an incident, a failed deploy);
        // no audits 150..180 (a gap), revision 4 after it.
        api: (m) => {
          if (m > 145 && m < 185) return undefined;
          if (m >= 30 && m <= 45) return { health: "Failed", revision: 2 };
          if (m >= 60 && m < 85) return { health: "InProgress", revision: 3 };
          return { health: "Current", revision: m >= 185 ? 4 : m >= 60 ? 3 : 2 };
        },
        // Flaps every audit from 100 to 140 (across midnight at 120), with a deploy at 125 while Failed.
        web: (m) => ({
          health: m >= 100 && m <= 140 && (m / 5) % 2 === 0 ? "Failed" : "Current",
          revision: m >= 125 ? 3 : 2,
        }),
        // Installed at 0 (revision 1); upgraded at 230 into a rollout still running at the end (open, pending).
        db: (m) => ({ health: m >= 230 ? "InProgress" : "Current", revision: m >= 230 ? 2 : 1 }),
      };
      const rules = defaultRules(5 * MIN);
      const releases = { api, web, db };
      for (let m = 0; m <= END; m += 5) {
        const at = new Date(T0 + m * MIN);
        const runId = runIdFor(at);
        await auditRuns.startRun(runId, at.toISOString());
        for (const cluster of [api.cluster, db.cluster]) {
          const sightings = [];
          for (const [name, release] of Object.entries(releases)) {
            if (release.cluster !== cluster) continue;
            const seen = plan[name](m);
            if (!seen) continue;
            const observation: Observation = {
              ...observe(release, runId, { podHealth: seen.health === "Failed" ? "Failed" : "Current" }),
              revision: seen.revision,
              health: { overall: seen.health, message: seen.health },
            };
            const result = await recordObservation(snapshots, observation, 90, { rules });
            const figures = await rollupFiguresOf(snapshots, result, runId, at, rules);
            if (figures) sightings.push({ release, figures });
          }
          await auditRuns.completeMessage(runId, cluster, tally, at.toISOString(), rollupAdds(cluster, sightings));
        }
      }
      const now = new Date(T0 + END * MIN);
      const deps = {
        snapshots,
        rollups,
        clusters: "any" as const,
        clock: { now: () => now },
        settings: { auditIntervalSeconds: 300, retentionDays: 90 },
      };
      const window = { since: "2027-01-01T00:00:00Z" };
      const each = async (...keys: (typeof api)[]) => {
        const totals = emptyTotals();
        for (const key of keys) {
          const report = await reliabilityOfRelease(deps, key, window);
          addTotals(totals, {
            windowMs: report.windowMs,
            coveredMs: report.coveredMs,
            timeInHealthMs: report.timeInHealthMs,
            incidents: report.incidents.count,
            recovered: report.incidents.recovered,
            recoveryMs: (report.mttrMs ?? 0) * report.incidents.recovered,
            flaps: report.flaps,
            deploys: report.deploys.count,
            failedDeploys: report.deploys.failed,
            pendingDeploys: report.deploys.pending,
          });
        }
        return figuresOf(totals);
      };
      const figures = (r: Awaited<ReturnType<typeof reliabilityOfScope>>) => {
        const { scope: _s, releases: _r, window: _w, notes: _n, worst: _x, rules: _u, ...rest } = r;
        return rest;
      };
      // Only the releases of this test: their own clusters (the store may hold other tests' releases).
      const eu = await reliabilityOfScope(deps, { ...window, cluster: api.cluster });
      const us = await reliabilityOfScope(deps, { ...window, cluster: db.cluster });
      const shop = await reliabilityOfScope(deps, { ...window, cluster: api.cluster, namespace: "shop" });
      assert.deepEqual(figures(eu), await each(api, web));
      assert.deepEqual(figures(us), await each(db));
      assert.deepEqual(figures(shop), figures(eu));
      assert.equal(eu.releases, 2);
      // The hand-counted figures the sums are made of (api: 2 incidents, web: 5 Failed flaps, db: one pending).
      assert.deepEqual(eu.incidents, { count: 2 + 5, recovered: 7, open: 0 });
      assert.deepEqual(eu.deploys, { count: 3, failed: 2, pending: 1 }, "api at 185 is within its hour");
      assert.ok(eu.flaps >= 8, `web flaps at every change after its first: ${eu.flaps}`);
      assert.deepEqual(us.deploys, { count: 2, failed: 0, pending: 1 });
      assert.deepEqual(us.incidents, { count: 0, recovered: 0, open: 0 });
      assert.equal(us.timeInHealthMs.InProgress, 10 * MIN);
      // The worst rows are the releases' own reports, the worst first.
      assert.deepEqual(
        eu.worst.map((row) => row.release.name),
        ["api", "web"],
      );
      assert.deepEqual(eu.window.observedSince, "2027-01-01T00:00:00.000Z");
      assert.deepEqual(eu.notes, []);
      // A window from mid-day over a small scope: each release read, the window exactly as asked (not whole days).
      const midDay = { since: "2026-12-31T12:00:00Z" };
      const exact = await reliabilityOfScope(deps, { ...midDay, cluster: api.cluster });
      assert.equal(exact.window.observedSince, "2026-12-31T12:00:00.000Z");
      assert.match(exact.notes.join("\n"), /read release by release \(2\): the window exactly as asked/);
      const eachMidDay = async (...keys: (typeof api)[]) => {
        let coveredMs = 0;
        for (const key of keys) coveredMs += (await reliabilityOfRelease(deps, key, midDay)).coveredMs;
        return coveredMs;
      };
      assert.equal(exact.coveredMs, await eachMidDay(api, web));
      // Past the exact bound (0 here), the rollups answer: whole days, and it says where the rollups begin.
      const rollupsOnly = { ...deps, settings: { ...deps.settings, exactScopeReleases: 0 } };
      const earlier = await reliabilityOfScope(rollupsOnly, { ...midDay, cluster: api.cluster });
      assert.equal(earlier.window.observedSince, "2026-12-31T00:00:00.000Z");
      assert.match(earlier.notes.join("\n"), /whole UTC days: 2026-12-31T00:00:00.000Z to 2027-01-02T02:00:00.000Z/);
      assert.match(earlier.notes.join("\n"), /the rollups begin on 2027-01-01/);
      assert.equal(earlier.timeInHealthMs.Current, eu.timeInHealthMs.Current);
    });
  });
}
