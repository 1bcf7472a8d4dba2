/**
 * The audit worker Lambda (SQS event source, ReportBatchItemFailures): each
 * record is one message of a cluster's releases; Powertools' BatchProcessor
 * reports the records whose processing threw (a store outage, a malformed
 * message), so only those come back, and after maxReceiveCount go to the DLQ.
 */
import { BatchProcessor, EventType, processPartialResponse } from "@aws-lambda-powertools/batch";
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import { type AuditMessage, InvalidAuditMessageError, parseAuditMessage } from "../../shared/audit/audit-message.ts";
import { auditMessage } from "../../shared/usecases/audit-release.ts";
import { deadlineFrom } from "../_shared/runtime.ts";
import { lambdaEntry, withTelemetry } from "../_shared/shell.ts";
import { type AuditRuntime, auditRuntimeFromEnv } from "./deps.ts";

export function createWorkerHandler(runtime: AuditRuntime) {
  return withTelemetry(runtime.telemetry, async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    // At least a second per batch, so a redelivered message still makes progress when the margin eats the rest.
    const deadline = deadlineFrom(context, runtime.config.settings.deadlineMarginMs, { floorMs: 1000 });
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
    return processPartialResponse(event, record, processor, { context, throwOnFullBatchFailure: false });
  });
}

/** The Lambda entry point (serverless.yml: auditWorker). */
export const handler = lambdaEntry(() => createWorkerHandler(auditRuntimeFromEnv(process.env)));
