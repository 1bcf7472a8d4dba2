/**
 * The audit worker Lambda (SQS event source, ReportBatchItemFailures): each
 * record is one message of a cluster's releases; Powertools' BatchProcessor
 * reports the records whose processing threw (a store outage, a malformed
 * message), so only those come back, and after maxReceiveCount go to the DLQ.
 */
import { BatchProcessor, EventType, processPartialResponse } from "@aws-lambda-powertools/batch";
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import { type AuditMessage, InvalidAuditMessageError, parseAuditMessage } from "../../shared/history/audit-message.ts";
import { auditMessage } from "../../shared/usecases/audit-release.ts";
import { type AuditRuntime, auditRuntimeFromEnv } from "./deps.ts";

export function createWorkerHandler(runtime: AuditRuntime) {
  return async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    const deadline =
      Date.now() + Math.max(1000, context.getRemainingTimeInMillis() - runtime.config.settings.deadlineMarginMs);
    const processor = new BatchProcessor(EventType.SQS);
    const record = async (item: SQSRecord) => {
      let message: AuditMessage | undefined;
      try {
        message = parseAuditMessage(item.body);
        await auditMessage(runtime, message, { deadline });
      } catch (error) {
        if (error instanceof InvalidAuditMessageError) {
          // Poison: every delivery is refused the same way until SQS moves it to the DLQ. The reason names the
          // field, never a value of the payload (which is not logged).
          runtime.logger.error("audit message refused; it will reach the DLQ after maxReceiveCount", {
            messageId: item.messageId,
            receiveCount: item.attributes.ApproximateReceiveCount,
            bytes: item.body.length,
            reason: error.message,
          });
          throw error;
        }
        if (!message) throw error;
        runtime.logger.warn("audit message failed; SQS will redeliver it", {
          runId: message.runId,
          part: message.part,
          receiveCount: item.attributes.ApproximateReceiveCount,
          error: (error as Error).message,
        });
        throw error;
      }
    };
    try {
      return await processPartialResponse(event, record, processor, { context, throwOnFullBatchFailure: false });
    } finally {
      runtime.flushMetrics();
    }
  };
}

let handlerInstance: ReturnType<typeof createWorkerHandler> | undefined;

export const handler = (event: SQSEvent, context: Context) => {
  handlerInstance ??= createWorkerHandler(auditRuntimeFromEnv(process.env));
  return handlerInstance(event, context);
};
