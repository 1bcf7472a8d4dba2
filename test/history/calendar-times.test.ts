/**
 * Issue #39 item 11: a date or time the calendar lacks is a 400, wherever a time is read (?at, ?against, ?since,
 * ?until, a snapshot id's run), instead of JavaScript's roll-over (2026-02-30 read as March 2, T24:00 as the next
 * day). Through the API handler on memory stores, with audits of the release so every route has data.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { isCalendarDateTime, parseCalendarTime } from "../../shared/input/calendar-time.ts";
import { memoryHistoryStores } from "../../shared/snapshots/history-stores.ts";
import { isRunId } from "../../shared/snapshots/model.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { bodyJson, httpApiEvent, lambdaContext, testApiHandler } from "../api/support.ts";
import { makeRelease } from "../store/fixtures.ts";
import { observe, recordAudited, run } from "./fixtures.ts";

const clusters = {
  list: () => [{ name: "eu", region: "eu-west-1" }],
  access: async () => Promise.reject(new Error("no cluster is read")),
  invalidate: () => {},
};
const release = { cluster: "eu", namespace: "shop", name: "api" };
const store = new MemoryReleaseStore();
await store.putRevision("eu", makeRelease({ name: "api", namespace: "shop" }));
const history = memoryHistoryStores();
for (const minutes of [-20, -15, -10]) await recordAudited(history, observe(release, run(minutes)));
const handler = testApiHandler({
  store,
  clusters,
  clock: { now: () => new Date("2026-01-01T00:00:00Z") },
  historyStores: history,
  history: { auditIntervalSeconds: 300, retentionDays: 90 },
});
const base = "/clusters/eu/namespaces/shop/releases/api";

const IMPOSSIBLE = [
  "2025-02-29T00:00:00Z", // not a leap year
  "2025-02-30T00:00:00Z",
  "2025-04-31",
  "2025-12-31T24:00:00Z",
  "2025-12-31T23:60:00Z",
  "2025-12-31T23:00:00+24:00",
];

test("the calendar's own ranges: leap days, month lengths, hours 00-23", () => {
  assert.ok(isCalendarDateTime(2024, 2, 29));
  assert.ok(!isCalendarDateTime(2025, 2, 29));
  assert.ok(!isCalendarDateTime(2100, 2, 29));
  assert.ok(isCalendarDateTime(2000, 2, 29));
  assert.ok(!isCalendarDateTime(2026, 4, 31));
  assert.ok(!isCalendarDateTime(2026, 1, 1, 24));
  for (const value of IMPOSSIBLE) assert.equal(parseCalendarTime(value), undefined, value);
  assert.equal(parseCalendarTime("2024-02-29T12:30:00+02:00")?.toISOString(), "2024-02-29T10:30:00.000Z");
  assert.equal(parseCalendarTime("2025-12-31")?.toISOString(), "2025-12-31T00:00:00.000Z");
  assert.ok(!isRunId("20250230T000000Z"));
  assert.ok(isRunId("20240229T000000Z-cli"));
});

test("?at, ?against, ?since and ?until with a date the calendar lacks are a 400 naming the parameter", async () => {
  for (const value of IMPOSSIBLE) {
    const v = encodeURIComponent(value);
    for (const [target, parameter] of [
      [`${base}/status?at=${v}`, "at"],
      [`${base}/status?at=-15m&against=${v}`, "against"],
      [`${base}/snapshots?since=${v}`, "since"],
      [`${base}/snapshots?until=${v}`, "until"],
      [`${base}/reliability?since=${v}`, "since"],
      [`${base}/timeline?until=${v}`, "until"],
      [`/fleet/reliability?since=${v}`, "since"],
    ]) {
      const result = await handler(httpApiEvent("GET", target), lambdaContext());
      assert.equal(result.statusCode, 400, `${target}: ${result.body}`);
      const { error } = bodyJson(result) as { error: { message: string } };
      assert.match(error.message, new RegExp(`^${parameter} .* is not a time`), target);
    }
  }
  // The same moment written as it exists still answers.
  const ok = await handler(httpApiEvent("GET", `${base}/status?at=2025-12-31T23:45:00Z`), lambdaContext());
  assert.equal(ok.statusCode, 200, ok.body);
});

test("a snapshot id whose run names an impossible date is a 400 InvalidSnapshotId, not another day's snapshot", async () => {
  const result = await handler(httpApiEvent("GET", `${base}/snapshots/eu.shop.api@20250230T000000Z`), lambdaContext());
  assert.equal(result.statusCode, 400, result.body);
  assert.equal((bodyJson(result) as { error: { code: string } }).error.code, "InvalidSnapshotId");
});
