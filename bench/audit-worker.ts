/**
 * One audit worker process for `npm run bench -- audit`: the worker Lambda handler on
 * the local poller (batches of 10), until the queue stays empty; then its RSS as JSON.
 */
import { auditRuntimeFromEnv } from "../functions/audit/deps.ts";
import { createWorkerHandler } from "../functions/audit/worker.ts";
import { createLocalPoller } from "../local/queue/poller.ts";
import { silentLogger } from "../shared/ports.ts";
import { createSqsClient, queueClientConfigFromEnv } from "../shared/queue/config.ts";

const runtime = auditRuntimeFromEnv(process.env, {}, { logger: silentLogger });
const poller = createLocalPoller({
  client: createSqsClient(queueClientConfigFromEnv(process.env)),
  queueUrl: process.env.AUDIT_QUEUE_URL!,
  handler: createWorkerHandler(runtime),
  batchSize: 10,
  waitTimeSeconds: 1,
  functionTimeoutMs: 120_000,
});
process.stdout.write("ready\n");
let releases = 0;
let peakRss = 0;
// Bounded: at most 10,000 receives; stops after 5 empty long polls once work was seen (or 60 before any).
for (let i = 0, empty = 0; i < 10_000; i++) {
  const outcome = await poller.pollOnce();
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  if (outcome.received === 0) {
    empty++;
    if ((releases > 0 && empty >= 5) || empty >= 60) break;
  } else {
    empty = 0;
    releases += outcome.deleted;
  }
}
await runtime.close();
process.stdout.write(`${JSON.stringify({ messages: releases, peakRss })}\n`);
process.exit(0);
