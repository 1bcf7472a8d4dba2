/**
 * The sync worker Lambda (SQS event source, ReportBatchItemFailures): each record names one cluster, synced with
 * the Lambda's remaining time as its deadline, then its attributions looked up (docs/who.md); a cluster whose
 * registry entry says `sync: false` has its attributions looked up only. A run cut short keeps its cursor (the next schedule continues);
 * a cluster already being synced is not an error; a store outage or a malformed message is reported so SQS
 * redelivers it (then the DLQ).
 */
import { BatchProcessor, EventType, processPartialResponse } from "@aws-lambda-powertools/batch";
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import { parseSyncMessage } from "../../shared/sync/message.ts";
import { counters, SyncBusyError, syncCluster } from "../../shared/usecases/sync.ts";
import { attributeCluster } from "../../shared/who/attribute.ts";
import { deadlineFrom } from "../_shared/runtime.ts";
import { lambdaEntry, withTelemetry } from "../_shared/shell.ts";
import { type SyncRuntime, syncRuntimeFromEnv } from "./deps.ts";

export function createSyncWorkerHandler(runtime: SyncRuntime) {
  return withTelemetry(runtime.telemetry, async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    const processor = new BatchProcessor(EventType.SQS);
    const record = async (item: SQSRecord) => {
      const { cluster } = parseSyncMessage(item.body);
      const deadline = deadlineFrom(context, runtime.config.settings.deadlineMarginMs, {
        now: runtime.clock.now().getTime(),
        floorMs: 1000,
      });
      // `sync: false`: nothing of the cluster is synced, but what its imports and audits enqueued is looked up.
      if (runtime.policy(cluster)?.enabled === false) {
        runtime.logger.info("release sync off for this cluster (sync: false); attributions only", { cluster });
        await attributeAfterSync(runtime, cluster, deadline);
        return;
      }
      try {
        const summary = await syncCluster(
          {
            store: runtime.store,
            syncState: runtime.syncState,
            kube: runtime.kube,
            scope: runtime.clusters,
            logger: runtime.logger,
            // Without the lookup (WHO_LOOKUP=off) nothing is enqueued that would never be looked up.
            ...(runtime.auditLog ? { attributions: runtime.attributions } : {}),
          },
          {
            cluster,
            policy: runtime.policy(cluster),
            deadline,
            pageSize: runtime.config.settings.pageSize,
            leaseMs: runtime.config.settings.leaseMs,
          },
        );
        runtime.telemetry.metrics.addMetric("SyncImported", "Count", summary.imported);
        runtime.telemetry.metrics.addMetric("SyncFailed", "Count", summary.failed);
        runtime.telemetry.metrics.addMetric("SyncRemoved", "Count", summary.removed);
        if (!summary.complete)
          runtime.logger.info("release sync incomplete; the next run continues", counters(summary));
        await attributeAfterSync(runtime, cluster, deadline);
      } catch (error) {
        if (error instanceof SyncBusyError) {
          runtime.logger.info("release sync skipped: another run holds the cluster", { cluster });
          return;
        }
        runtime.logger.warn("release sync failed; SQS will redeliver it", { cluster, error: (error as Error).message });
        throw error;
      }
    };
    return processPartialResponse(event, record, processor, { context, throwOnFullBatchFailure: false });
  });
}

/**
 * Who made the cluster's new revisions and drift writes (docs/who.md): the attribution worker in what is left of
 * the invocation after the sync (bounded per run; the next run resumes). Never fails the record: the sync is done.
 */
async function attributeAfterSync(runtime: SyncRuntime, cluster: string, deadline: number): Promise<void> {
  if (!runtime.auditLog) return;
  const left = deadline - runtime.clock.now().getTime();
  if (left <= 0) return;
  try {
    const summary = await attributeCluster(
      cluster,
      {
        store: runtime.attributions,
        lookup: runtime.auditLog,
        clock: runtime.clock,
        logger: runtime.logger,
        options: { retryWindowMs: runtime.config.settings.whoRetryWindowMs },
      },
      AbortSignal.timeout(left),
    );
    if (summary.looked === 0) return;
    runtime.logger.info("attributions settled", { ...summary });
    runtime.telemetry.metrics.addMetric("AttributionsFound", "Count", summary.found);
    runtime.telemetry.metrics.addMetric("AttributionQueries", "Count", summary.queries);
  } catch (error) {
    runtime.logger.warn("attribution lookups failed; the next run retries", { cluster, error: (error as Error).name });
  }
}

/** The Lambda entry point (serverless.yml: syncWorker). */
export const handler = lambdaEntry(() => createSyncWorkerHandler(syncRuntimeFromEnv(process.env)));
