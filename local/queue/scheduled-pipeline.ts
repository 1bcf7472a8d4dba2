/**
 * A scheduled, queue-fed pair of Lambdas in `npm start` (the audit's planner and worker, the release sync's
 * scheduler and worker): fauxqs with the queue and its DLQ, the worker handler polled in-process like Lambda's
 * event source mapping, and the scheduling handler run once on start and then every interval, like its
 * EventBridge rule. A failed tick or batch is a console line; it never stops the loop.
 */
import { storeConfigFromEnv } from "../../shared/store/config.ts";
import { createQueueWithDlq, startLocalSqs } from "../fauxqs.ts";
import { createLocalPoller, type SqsBatchHandler } from "./poller.ts";

export interface ScheduledPipelineOptions {
  /** The pipeline's name: its queue is `helm-status-<name>`, its console lines start `<name> …`. */
  name: string;
  /** What the scheduling function is called in those lines (`planner`, `scheduler`). */
  schedulerName: string;
  /** The variable the functions read the queue's URL from (AUDIT_QUEUE_URL, SYNC_QUEUE_URL). */
  queueUrlVariable: string;
  /** The worker's timeout, and the local queue's visibility timeout: a message comes back once the worker gave up. */
  timeoutSeconds: number;
  intervalSeconds: number;
  env: NodeJS.ProcessEnv;
  out: (line: string) => void;
  /** The two handlers, built from the functions' environment (the caller's, pointed at fauxqs and the queue). */
  handlers(env: NodeJS.ProcessEnv): { schedule: () => Promise<unknown>; worker: SqsBatchHandler };
}

export interface ScheduledPipeline {
  queueUrl: string;
  stop(): Promise<void>;
}

export async function startScheduledPipeline(options: ScheduledPipelineOptions): Promise<ScheduledPipeline> {
  const { name, env, out } = options;
  const sqs = await startLocalSqs({ port: 0 });
  const { queueUrl, schedule, worker } = await (async () => {
    const queue = await createQueueWithDlq(sqs.client, `helm-status-${name}`, {
      visibilityTimeoutSeconds: options.timeoutSeconds,
    });
    const functionEnv = {
      ...env,
      ...sqs.env,
      [options.queueUrlVariable]: queue.queueUrl,
      AWS_ENDPOINT_URL_DYNAMODB: storeConfigFromEnv(env).endpoint,
    };
    return { queueUrl: queue.queueUrl, ...options.handlers(functionEnv) };
  })().catch(async (error) => {
    await sqs.stop();
    throw error;
  });
  const poller = createLocalPoller({
    client: sqs.client,
    queueUrl,
    handler: worker,
    waitTimeSeconds: 1,
    functionTimeoutMs: options.timeoutSeconds * 1000,
    functionName: `${name}Worker`,
    onError: (error) => out(`${name} worker: ${(error as Error).message}`),
  });
  poller.start();
  const tick = async () => {
    try {
      await schedule();
    } catch (error) {
      out(`${name} ${options.schedulerName}: ${(error as Error).message}`);
    }
  };
  await tick();
  const timer = setInterval(tick, options.intervalSeconds * 1000);
  return {
    queueUrl,
    async stop() {
      clearInterval(timer);
      await poller.stop();
      await sqs.stop();
    },
  };
}
