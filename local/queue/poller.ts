/**
 * Lambda's SQS event source mapping, in-process, for `npm start`, tests and the
 * bench: long-poll ReceiveMessage, hand the batch to the real handler as a
 * Lambda SQS event, then do what Lambda does with the answer — a thrown error
 * deletes nothing; a `batchItemFailures` answer deletes every other message
 * (an identifier that is not in the batch fails the whole batch, like Lambda).
 * Messages not deleted come back after their visibility timeout, and after
 * maxReceiveCount receives SQS moves them to the DLQ (the queue's redrive policy).
 */
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import type { Context, SQSBatchResponse, SQSEvent } from "aws-lambda";
import { sleep } from "../../shared/retry.ts";
import { localLambdaContext } from "../lambda-context.ts";
import { sqsEventFrom } from "./lambda-event.ts";

export type SqsBatchHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

export interface LocalPollerOptions {
  client: SQSClient;
  queueUrl: string;
  handler: SqsBatchHandler;
  /** Messages per invocation (Lambda's batchSize; SQS caps one receive at 10). */
  batchSize?: number;
  /** Long-poll wait per receive (seconds, 0..20; default 1 so stop() is prompt). */
  waitTimeSeconds?: number;
  /** The function's timeout the handler sees in getRemainingTimeInMillis (default 60 s). */
  functionTimeoutMs?: number;
  functionName?: string;
  /** Invocations in flight at once (Lambda's maximumConcurrency; default 1). */
  concurrency?: number;
  /** Told about each invocation (counts), and about receive/handler errors. */
  onBatch?: (outcome: BatchOutcome) => void;
  onError?: (error: unknown) => void;
}

export interface BatchOutcome {
  received: number;
  failed: number;
  deleted: number;
  /** The handler threw: nothing was deleted. */
  threw: boolean;
}

export interface LocalPoller {
  /** One receive + invoke + delete; resolves with what happened (received 0 when the queue was empty). */
  pollOnce(): Promise<BatchOutcome>;
  /** Polls continuously until stop(). */
  start(): void;
  /** Stops polling and waits for the invocations in flight. */
  stop(): Promise<void>;
}

export function createLocalPoller(options: LocalPollerOptions): LocalPoller {
  const batchSize = Math.min(10, Math.max(1, options.batchSize ?? 10));
  const wait = options.waitTimeSeconds ?? 1;
  const timeoutMs = options.functionTimeoutMs ?? 60_000;
  const functionName = options.functionName ?? "local-sqs-consumer";
  let queueArn: Promise<{ arn: string; region: string }> | undefined;
  let running = false;
  const loops: Promise<void>[] = [];

  const arn = () => {
    queueArn ??= (async () => {
      const answer = await options.client.send(
        new GetQueueAttributesCommand({ QueueUrl: options.queueUrl, AttributeNames: ["QueueArn"] }),
      );
      const value =
        answer.Attributes?.QueueArn ?? `arn:aws:sqs:local:000000000000:${options.queueUrl.split("/").pop()}`;
      return { arn: value, region: value.split(":")[3] || "us-east-1" };
    })();
    return queueArn;
  };

  async function pollOnce(): Promise<BatchOutcome> {
    const { arn: queue, region } = await arn();
    const answer = await options.client.send(
      new ReceiveMessageCommand({
        QueueUrl: options.queueUrl,
        MaxNumberOfMessages: batchSize,
        WaitTimeSeconds: wait,
        MessageSystemAttributeNames: ["All"],
        MessageAttributeNames: ["All"],
      }),
    );
    const messages = answer.Messages ?? [];
    if (messages.length === 0) return { received: 0, failed: 0, deleted: 0, threw: false };
    const event = sqsEventFrom(messages, queue, region);
    let response: SQSBatchResponse | undefined;
    try {
      response = await options.handler(event, localLambdaContext(functionName, timeoutMs));
    } catch (error) {
      options.onError?.(error);
      return { received: messages.length, failed: messages.length, deleted: 0, threw: true };
    }
    const failures = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    const ids = new Set(event.Records.map((r) => r.messageId));
    if ([...failures].some((id) => !id || !ids.has(id))) {
      // Lambda: an identifier it cannot match fails the whole batch.
      return { received: messages.length, failed: messages.length, deleted: 0, threw: false };
    }
    const done = event.Records.filter((r) => !failures.has(r.messageId));
    if (done.length > 0) {
      await options.client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: options.queueUrl,
          Entries: done.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })),
        }),
      );
    }
    return { received: messages.length, failed: failures.size, deleted: done.length, threw: false };
  }

  async function loop(): Promise<void> {
    while (running) {
      try {
        const outcome = await pollOnce();
        if (outcome.received > 0) options.onBatch?.(outcome);
      } catch (error) {
        options.onError?.(error);
        if (running) await sleep(1000);
      }
    }
  }

  return {
    pollOnce,
    start() {
      if (running) return;
      running = true;
      for (let i = 0; i < Math.max(1, options.concurrency ?? 1); i++) loops.push(loop());
    },
    async stop() {
      running = false;
      await Promise.all(loops.splice(0));
    },
  };
}
