/**
 * A worker process for the crash test: the real worker handler on the local poller,
 * which SIGKILLs itself right after its first snapshot write of a batch, before
 * the batch's messages are deleted (a worker dying mid-batch: no cleanup at all).
 */
import { auditRuntimeFromEnv } from "../../../functions/audit/deps.ts";
import { createWorkerHandler } from "../../../functions/audit/worker.ts";
import { createLocalPoller } from "../../../local/queue/poller.ts";
import { silentLogger } from "../../../shared/ports.ts";
import { createSqsClient, queueClientConfigFromEnv } from "../../../shared/queue/config.ts";

const runtime = auditRuntimeFromEnv(process.env, {}, { logger: silentLogger });
const create = runtime.snapshots.create.bind(runtime.snapshots);
runtime.snapshots.create = async (...args) => {
  const outcome = await create(...args);
  process.stdout.write(`wrote ${args[0].id}\n`);
  process.kill(process.pid, "SIGKILL");
  return outcome;
};
const poller = createLocalPoller({
  client: createSqsClient(queueClientConfigFromEnv(process.env)),
  queueUrl: process.env.AUDIT_QUEUE_URL!,
  handler: createWorkerHandler(runtime),
  batchSize: 10,
  waitTimeSeconds: 1,
});
process.stdout.write("polling\n");
for (let i = 0; i < 20; i++) await poller.pollOnce();
process.stdout.write("never crashed\n");
process.exit(3);
