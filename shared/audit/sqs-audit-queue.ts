/**
 * The audit queue on SQS: SendMessageBatch in 10s (shared/queue), a wave of BATCHES_IN_FLIGHT of them at once, the
 * wave's progress recorded after it (one onSent: its SENT markers are then written 25 to a BatchWriteItem, not 10).
 * At 50,000 releases (5,000 messages) the planner's round trips are 500 SendMessageBatch + 500 BatchWriteItem one
 * after the other without waves, 100 waves of (5 at once + 2) with them (docs/scale.md "Fixes"). A planner that
 * dies mid-wave resends at most that wave's messages when resumed (a redelivered part adds nothing to its run).
 */
import type { SQSClient } from "@aws-sdk/client-sqs";
import { type FailedEntry, QueueSendError } from "../queue/errors.ts";
import { SQS_BATCH_LIMIT, sendInBatches } from "../queue/send-batch.ts";
import type { AuditMessage, AuditQueue } from "./audit-message.ts";

/** SendMessageBatch calls in flight at once, per wave. */
export const BATCHES_IN_FLIGHT = 5;

export function sqsAuditQueue(client: SQSClient, queueUrl: string): AuditQueue {
  /** One batch of at most 10: what SQS took, and what it did not (named by part). */
  async function sendBatch(batch: AuditMessage[]): Promise<{ sent: AuditMessage[]; failed: FailedEntry[] }> {
    // Entry ids are positions: a part id (`<cluster>-<n>`, a cluster name has up to 100 characters) may pass
    // the 80 characters SQS allows an entry id.
    const result = await sendInBatches(
      client,
      queueUrl,
      batch.map((m, i) => ({ id: `m${i}`, body: JSON.stringify(m) })),
    );
    const taken = new Set(result.sent.map((s) => s.id));
    return {
      sent: batch.filter((_, i) => taken.has(`m${i}`)),
      failed: result.failed.map((f) => ({ ...f, id: batch[Number(f.id.slice(1))]?.part ?? f.id })),
    };
  }

  return {
    async send(messages, onSent) {
      const failed: FailedEntry[] = [];
      const wave = SQS_BATCH_LIMIT * BATCHES_IN_FLIGHT;
      for (let start = 0; start < messages.length; start += wave) {
        const batches: AuditMessage[][] = [];
        for (let at = start; at < Math.min(start + wave, messages.length); at += SQS_BATCH_LIMIT) {
          batches.push(messages.slice(at, at + SQS_BATCH_LIMIT));
        }
        const results = await Promise.all(batches.map(sendBatch));
        await onSent(results.flatMap((r) => r.sent));
        failed.push(...results.flatMap((r) => r.failed));
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
