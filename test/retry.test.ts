/** shared/retry.ts: the one retry policy (its callers' tests cover it against SQS, chat receivers and DynamoDB). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { backoffDelay, retryAfterMs, retryLeftovers, sleep } from "../shared/retry.ts";

test("backoff doubles per retry up to the cap, jittered between half and all of it", () => {
  const full = { baseMs: 100, capMs: 1000, random: () => 1 };
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6].map((retry) => backoffDelay(retry, full)),
    [100, 200, 400, 800, 1000, 1000],
  );
  assert.equal(backoffDelay(3, { ...full, random: () => 0 }), 200);
  assert.equal(backoffDelay(30, { baseMs: 50, random: () => 1 }), 50 * 2 ** 29, "no cap unless given");
});

test("Retry-After: delay-seconds, an HTTP date against the clock, nothing for garbage", () => {
  const clock = { now: () => new Date("2026-12-03T12:00:00Z") };
  assert.equal(retryAfterMs("3", clock), 3000);
  assert.equal(retryAfterMs(" 0 ", clock), 0);
  assert.equal(retryAfterMs("Thu, 03 Dec 2026 12:00:05 GMT", clock), 5000);
  assert.equal(retryAfterMs("Thu, 03 Dec 2026 11:00:00 GMT", clock), 0, "a date in the past: no wait");
  for (const value of [undefined, null, "", "soon", "-1"]) assert.equal(retryAfterMs(value, clock), undefined);
});

test("leftovers of a batch are retried with backoff, at most maxAttempts calls, and what is left is returned", async () => {
  const waits: number[] = [];
  const calls: string[][] = [];
  const policy = { maxAttempts: 3, baseMs: 10, random: () => 1, sleep: async (ms: number) => void waits.push(ms) };
  // Each call processes the first item only.
  const left = await retryLeftovers(
    ["a", "b", "c", "d"],
    async (pending) => {
      calls.push(pending);
      return pending.slice(1);
    },
    policy,
  );
  assert.deepEqual(calls, [
    ["a", "b", "c", "d"],
    ["b", "c", "d"],
    ["c", "d"],
  ]);
  assert.deepEqual(left, ["d"]);
  assert.deepEqual(waits, [10, 20]);
  waits.length = 0;
  assert.deepEqual(await retryLeftovers(["x"], async () => [], policy), []);
  assert.deepEqual(waits, [], "no wait when the first call took everything");
});

test("sleep wakes early when its signal aborts", async () => {
  const controller = new AbortController();
  const started = performance.now();
  const asleep = sleep(60_000, controller.signal);
  controller.abort();
  await asleep;
  assert.ok(performance.now() - started < 30_000);
  await sleep(1);
});
