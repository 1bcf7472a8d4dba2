/**
 * The sync scheduler Lambda (EventBridge, SYNC_SCHEDULE): one SQS message per registered cluster whose registry
 * entry does not say `sync: false`, so each cluster syncs in its own worker invocation (its own deadline, its own
 * retries, one slow cluster never delays the others); with the who lookup on (WHO_LOOKUP), one for a `sync: false`
 * cluster too, whose worker run looks up its attributions only.
 */
import type { SQSClient } from "@aws-sdk/client-sqs";
import { createSqsClient } from "../../shared/queue/config.ts";
import { QueueSendError } from "../../shared/queue/errors.ts";
import { sendInBatches } from "../../shared/queue/send-batch.ts";
import { lambdaEntry, withTelemetry } from "../_shared/shell.ts";
import { type SyncRuntime, syncRuntimeFromEnv } from "./deps.ts";

export interface ScheduleResult {
  /** Messaged: the clusters synced, and with the who lookup on, those with `sync: false` (attributions only). */
  clusters: string[];
  /** Not messaged: `sync: false` with the who lookup off (nothing to do for them). */
  skipped: string[];
}

export function createSchedulerHandler(
  runtime: SyncRuntime,
  client: SQSClient = createSqsClient(runtime.config.queue),
) {
  return withTelemetry(runtime.telemetry, async (): Promise<ScheduleResult> => {
    const all = runtime.clusters.list().map((entry) => entry.name);
    // A cluster not synced may still have attributions to look up (its imports and audits enqueue them).
    const clusters = all.filter((name) => runtime.policy(name)?.enabled !== false || runtime.auditLog !== undefined);
    const result = await sendInBatches(
      client,
      runtime.config.queueUrl!,
      clusters.map((cluster, index) => ({ id: `c${index}`, body: JSON.stringify({ cluster }) })),
    );
    if (result.failed.length > 0) {
      throw new QueueSendError(
        `SQS did not take ${result.failed.length} of ${clusters.length} sync messages (${result.failed[0].code}); the next schedule sends them again`,
        result.failed,
      );
    }
    runtime.logger.info("release sync scheduled", { clusters: clusters.length });
    return { clusters, skipped: all.filter((name) => !clusters.includes(name)) };
  });
}

/** The Lambda entry point (serverless.yml: syncScheduler). */
export const handler = lambdaEntry(() =>
  createSchedulerHandler(syncRuntimeFromEnv(process.env, { needQueueUrl: true })),
);
