/** The audit queue on SQS: SendMessageBatch in 10s (shared/queue), progress recorded after each call. */
import type { SQSClient } from "@aws-sdk/client-sqs";
import { QueueSendError } from "../queue/errors.ts";
import { SQS_BATCH_LIMIT, sendInBatches } from "../queue/send-batch.ts";
import type { AuditMessage, AuditQueue } from "./audit-message.ts";

export function sqsAuditQueue(client: SQSClient, queueUrl: string): AuditQueue {
  return {
    async send(messages, onSent) {
      const failed: { id: string; code: string; message: string }[] = [];
      for (let start = 0; start < messages.length; start += SQS_BATCH_LIMIT) {
        const chunk = messages.slice(start, start + SQS_BATCH_LIMIT);
        const result = await sendInBatches(
          client,
          queueUrl,
          chunk.map((m) => ({ id: m.part, body: JSON.stringify(m) })),
        );
        const sent = new Set(result.sent.map((s) => s.id));
        await onSent(chunk.filter((m) => sent.has(m.part)));
        failed.push(...result.failed);
      }
      if (failed.length > 0) {
        throw new QueueSendError(
          `SQS did not take ${failed.length} of ${messages.length} audit messages (${failed[0].code}: ${failed[0].message}); the next attempt resumes`,
          failed,
        );
      }
    },
  };
}

/** In-process: messages are kept for the caller to process (CLI `audit`). */
export function arrayAuditQueue(): AuditQueue & { messages: AuditMessage[] } {
  const messages: AuditMessage[] = [];
  return {
    messages,
    async send(batch, onSent) {
      messages.push(...batch);
      await onSent(batch);
    },
  };
}
