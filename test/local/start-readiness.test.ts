/**
 * Issue #39 item 12: `npm start` answers nothing before every route of its banner is mounted. It listens early
 * (the chat webhooks need its URL), so a client polling /healthz gets 503 until then; once /healthz is 200, the
 * chat routes are there too (they answered 404 for seconds while the sync and the audits started).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { freeLoopbackPort } from "../../local/dynamodb-local.ts";
import { hasJava, localStartsForFile } from "../support/local-start.ts";

const starts = localStartsForFile("helm-status-ready-");
const dataDir = starts.dir;

test("npm start: 503 until every route is mounted, then /healthz and the chat routes together", {
  skip: !hasJava && "no java for DynamoDB Local",
  timeout: 150_000,
}, async () => {
  const port = await freeLoopbackPort();
  const start = starts.spawn("npm", ["start", "--silent"], { dataDir, env: { PORT: String(port) } });
  const child = start.child;
  const url = `http://127.0.0.1:${port}`;
  const seen = new Set<number>();
  let healthy = false;
  // Bounded: at most 2,400 polls of 50 ms (two minutes), each with its own deadline.
  for (let i = 0; i < 2_400 && !healthy && child.exitCode === null; i++) {
    const answer = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
    if (answer) {
      seen.add(answer.status);
      await answer.arrayBuffer();
      if (answer.status === 200) {
        healthy = true;
        // At the first 200, the chat webhook is mounted: an unsigned request is refused by it (401), not a 404.
        const chat = await fetch(`${url}/chatops/slack/commands`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "text=status",
          signal: AbortSignal.timeout(5_000),
        });
        assert.notEqual(chat.status, 404, await chat.text());
        assert.notEqual(chat.status, 503);
        break;
      }
      assert.equal(answer.status, 503, `before it is ready /healthz answers 503, not ${answer.status}`);
    }
    await sleep(50);
  }
  assert.ok(healthy, start.output());
  assert.match(start.output(), /API ready on/);
  process.kill(-child.pid!, "SIGINT");
  await new Promise((resolve) => child.once("exit", resolve));
});
