/**
 * SendMessageBatch in chunks of 10 (SQS's limit), retrying the entries SQS
 * failed on its side (throttling, internal errors) with backoff; entries it
 * refused as the sender's fault are not retried. Returns what was sent and
 * what failed, so the caller decides whether a partial send is an error.
 */
import {
  type MessageAttributeValue,
  SendMessageBatchCommand,
  type SendMessageBatchCommandOutput,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import { retryLeftovers } from "../retry.ts";
import type { FailedEntry } from "./errors.ts";

export interface OutgoingMessage {
  /** Unique within one call (SQS batch entry id: letters, digits, - and _; at most 80). */
  id: string;
  body: string;
  attributes?: Record<string, MessageAttributeValue>;
  /** FIFO queues only. */
  groupId?: string;
  deduplicationId?: string;
}

export interface SendOptions {
  /** Attempts per entry, the first included (default 5). */
  maxAttempts?: number;
  /** Base backoff in ms, doubled per attempt, jittered (default 100). */
  backoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export interface SendResult {
  sent: { id: string; messageId: string }[];
  failed: FailedEntry[];
  /** SendMessageBatch calls made, retries included. */
  calls: number;
}

export const SQS_BATCH_LIMIT = 10;
/** SQS caps a whole batch at 256 KiB; stay under it with room for attributes. */
const MAX_BATCH_BYTES = 240 * 1024;

export async function sendInBatches(
  client: SQSClient,
  queueUrl: string,
  messages: OutgoingMessage[],
  options: SendOptions = {},
): Promise<SendResult> {
  const policy = { maxAttempts: options.maxAttempts ?? 5, baseMs: options.backoffMs ?? 100, sleep: options.sleep };
  const result: SendResult = { sent: [], failed: [], calls: 0 };
  for (const chunk of chunks(messages)) {
    // Why each entry last failed: what is left after the last attempt is reported with it.
    const lastFailure = new Map<string, FailedEntry>();
    const left = await retryLeftovers(
      chunk,
      async (pending) => {
        result.calls++;
        let answer: SendMessageBatchCommandOutput;
        try {
          answer = await client.send(
            new SendMessageBatchCommand({
              QueueUrl: queueUrl,
              Entries: pending.map((m) => ({
                Id: m.id,
                MessageBody: m.body,
                MessageAttributes: m.attributes,
                MessageGroupId: m.groupId,
                MessageDeduplicationId: m.deduplicationId,
              })),
            }),
          );
        } catch (error) {
          // The whole call failed (network, throttling): every entry is retried, then reported.
          const e = error as { name?: string; message?: string };
          const failures = pending.map((m) => ({
            id: m.id,
            code: e.name ?? "Error",
            message: e.message ?? String(error),
          }));
          if (!retryableCall(error)) {
            result.failed.push(...failures);
            return [];
          }
          for (const failure of failures) lastFailure.set(failure.id, failure);
          return pending;
        }
        for (const ok of answer.Successful ?? []) result.sent.push({ id: ok.Id ?? "", messageId: ok.MessageId ?? "" });
        const retry: OutgoingMessage[] = [];
        for (const bad of answer.Failed ?? []) {
          const message = pending.find((m) => m.id === bad.Id);
          if (!message) continue;
          const entry = { id: message.id, code: bad.Code ?? "Failed", message: bad.Message ?? "" };
          if (bad.SenderFault) {
            result.failed.push(entry);
          } else {
            lastFailure.set(entry.id, entry);
            retry.push(message);
          }
        }
        return retry;
      },
      policy,
    );
    result.failed.push(...left.map((m) => lastFailure.get(m.id)!));
  }
  return result;
}

function retryableCall(error: unknown): boolean {
  const e = error as { $retryable?: unknown; $metadata?: { httpStatusCode?: number }; name?: string; code?: string };
  if (e?.$retryable) return true;
  const status = e?.$metadata?.httpStatusCode;
  if (status !== undefined) return status >= 500 || status === 429;
  // No HTTP answer at all: a network failure.
  return true;
}

/** Up to 10 entries and under the byte cap per batch. */
function* chunks(messages: OutgoingMessage[]): Generator<OutgoingMessage[]> {
  let current: OutgoingMessage[] = [];
  let bytes = 0;
  for (const message of messages) {
    const size = Buffer.byteLength(message.body) + 200;
    if (current.length === SQS_BATCH_LIMIT || (current.length > 0 && bytes + size > MAX_BATCH_BYTES)) {
      yield current;
      current = [];
      bytes = 0;
    }
    current.push(message);
    bytes += size;
  }
  if (current.length > 0) yield current;
}
