/** The reliability routes and ?at= on the status route, with real API Gateway v2 events (stores in memory). */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { memoryHistoryStores } from "../../shared/snapshots/history-stores.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { bodyJson, bodyText, httpApiEvent, lambdaContext, testApiHandler } from "../api/support.ts";
import { makeRelease } from "../store/fixtures.ts";
import { observe, recordAudited, run } from "./fixtures.ts";

const MIN = 60_000;
const T0 = Date.parse("2026-01-01T00:00:00Z");
const at = (minutes: number) => new Date(T0 + minutes * MIN).toISOString();
const history = memoryHistoryStores();
const store = new MemoryReleaseStore();
const release = { cluster: "eu", namespace: "shop", name: "api" };
const base = "/clusters/eu/namespaces/shop/releases/api";
const clusters = {
  list: () => [{ name: "eu", region: "eu-west-1" }],
  access: async () => Promise.reject(new Error("unused: no cluster is read")),
  invalidate: () => {},
};
const handler = testApiHandler({
  store,
  clusters,
  clock: { now: () => new Date(T0 + 62 * MIN) },
  historyStores: history,
  history: { auditIntervalSeconds: 300, retentionDays: 90 },
});
const get = (path: string, headers: Record<string, string> = {}) =>
  handler(httpApiEvent("GET", path, { headers }), lambdaContext());

before(async () => {
  await store.putRevision("eu", makeRelease({ name: "api", namespace: "shop", version: 2 }));
  // Current 0..30, Failed 35..50, Current 55..60; now = 62.
  for (let m = 0; m <= 60; m += 5) {
    const failed = m >= 35 && m <= 50;
    const text = `NAME: api\nHEALTH: ${failed ? "Failed" : "Current"}\n`;
    await recordAudited(history, observe(release, run(m), { podHealth: failed ? "Failed" : "Current", text }), 90);
  }
});

test("GET .../reliability: the documented report; ?output=table the CLI's text", async () => {
  const result = await get(`${base}/reliability?since=${at(0)}`);
  assert.equal(result.statusCode, 200, bodyText(result));
  const report = bodyJson(result) as Record<string, unknown>;
  // Current 0..35 and 55..62 = 42 min, Failed 35..55 = 20 min, all covered.
  assert.equal(report.coverage, 1);
  assert.equal(report.availability, 42 / 62);
  assert.deepEqual(report.incidents, { count: 1, recovered: 1, open: 0 });
  assert.equal(report.mttrMs, 20 * MIN);
  const table = await get(`${base}/reliability?since=${at(0)}&output=table`);
  assert.match(bodyText(table), /^AVAILABILITY\s+67\.7% of the covered time Current$/m);
  assert.match(bodyText(table), /^INCIDENTS\s+1 \(1 recovered, 0 open\)\s+MTTR 20m\s+MTBF 42m$/m);
});

test("GET /fleet/reliability: the fleet summed, filters, and bad input as 4xx", async () => {
  const fleet = bodyJson(await get(`/fleet/reliability?since=${at(0)}&cluster=eu`)) as Record<string, unknown>;
  assert.equal(fleet.releases, 1);
  // From the rollups: time up to the latest audit (minute 60), not held on to now (62) as the release's own report.
  assert.equal(fleet.availability, 40 / 60);
  const chart = bodyJson(await get(`/fleet/reliability?since=${at(0)}&chart=other`)) as Record<string, unknown>;
  assert.equal(chart.releases, 0);
  const backwards = await get(`/fleet/reliability?since=${at(30)}&until=${at(10)}`);
  assert.equal(backwards.statusCode, 400);
  assert.match(bodyText(backwards), /is not before until/);
  assert.equal((await get("/fleet/reliability?cluster=nowhere")).statusCode, 404);
  assert.equal((await get("/fleet/reliability?bogus=1")).statusCode, 400);
  assert.equal((await get("/clusters/eu/namespaces/shop/releases/nope/reliability")).statusCode, 404);
});

test("GET .../status?at=: between two audits, what the earlier one saw, no cluster read; no coverage is a 404", async () => {
  const result = await get(`${base}/status?at=${at(37.5)}`);
  assert.equal(result.statusCode, 200, bodyText(result));
  assert.equal(
    bodyText(result),
    `SNAPSHOT: eu.shop.api@${run(35)} as of ${at(37.5)} (first seen ${at(35)}, last seen ${at(50)}, seen 4 times)\nNAME: api\nHEALTH: Failed\n`,
  );
  const doc = bodyJson(await get(`${base}/status?at=${at(37.5)}&output=json`)) as {
    coverage: string;
    snapshot: { id: string };
  };
  assert.equal(doc.coverage, "observed");
  assert.equal(doc.snapshot.id, `eu.shop.api@${run(35)}`);
  const diff = await get(`${base}/status?at=${at(40)}&against=${at(10)}&output=json`);
  assert.deepEqual((bodyJson(diff) as { changes: unknown[] }).changes[0], {
    kind: "health",
    from: "Current",
    to: "Failed",
  });
  const before = await get(`${base}/status?at=2025-12-31T00:00:00Z`);
  assert.equal(before.statusCode, 404);
  assert.match(bodyText(before), /NoSnapshotCoverage.*before the first retained audit/);
  const future = await get(`${base}/status?at=2026-02-01T00:00:00Z`);
  assert.equal(future.statusCode, 400);
  assert.match(bodyText(future), /in the future/);
  assert.equal((await get(`${base}/status?at=${at(10)}&revision=2`)).statusCode, 400);
  assert.equal((await get(`${base}/status?against=${at(10)}`)).statusCode, 400);
});
