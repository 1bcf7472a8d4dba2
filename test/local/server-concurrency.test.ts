import assert from "node:assert/strict";
import { request } from "node:http";
import { test } from "node:test";
import { startLocalServer } from "../../local/server.ts";

/** Issue 14 item 7: the local server runs a bounded number of invocations at once, FIFO, budgets from arrival. */

test("at most maxConcurrency invocations at once; the rest wait in order and their budget counts from arrival", async () => {
  let inFlight = 0;
  let maxInFlight = 0;
  const order: number[] = [];
  const remaining: number[] = [];
  const server = await startLocalServer({
    port: 0,
    maxConcurrency: 3,
    timeoutMs: 10_000,
    handler: async (event, context) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      order.push(Number(event.rawPath.slice(1)));
      remaining.push(context.getRemainingTimeInMillis());
      await new Promise((resolve) => setTimeout(resolve, 150));
      inFlight--;
      return { statusCode: 200, body: "ok" };
    },
  });
  try {
    const answers: Promise<number | undefined>[] = [];
    for (let i = 0; i < 12; i++) {
      // The next request starts only once this one is written to its socket (plus a margin), so arrival order is
      // well defined even on a loaded machine (a fixed 2 ms stagger was not).
      const { answer, sent } = get(`${server.url}/${i}`);
      answers.push(answer);
      await sent;
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    assert.deepEqual(await Promise.all(answers), Array(12).fill(200));
    assert.equal(maxInFlight, 3);
    assert.deepEqual(order, [...Array(12).keys()], "first come, first served");
    // The last ones waited about 3 rounds of 150 ms, less their staggered arrival: their remaining budget shows it.
    assert.ok(remaining[11] < 10_000 - 100, `remaining ${remaining[11]} ms`);
  } finally {
    await server.close();
  }
});

function get(url: string): { answer: Promise<number | undefined>; sent: Promise<void> } {
  let markSent: () => void = () => {};
  const sent = new Promise<void>((resolve) => {
    markSent = resolve;
  });
  const answer = new Promise<number | undefined>((resolve, reject) => {
    const req = request(url, { agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode));
    });
    req.on("finish", markSent);
    req.on("error", reject);
    req.end();
  });
  return { answer, sent };
}
