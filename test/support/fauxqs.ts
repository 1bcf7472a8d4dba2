/**
 * Tests' SQS: fauxqs on a free loopback port, started and stopped by the test
 * (`before(startTestSqs)` / `after(sqs.stop)`), plus small probes of a queue.
 */
import { GetQueueAttributesCommand, ReceiveMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import { createQueueWithDlq, type LocalSqs, type QueuePair, startLocalSqs } from "../../local/fauxqs.ts";

export type { LocalSqs, QueuePair };
export { createQueueWithDlq };

export function startTestSqs(): Promise<LocalSqs> {
  return startLocalSqs({ port: 0 });
}

let counter = 0;
/** A fresh queue + DLQ per test, so tests sharing one fauxqs never see each other's messages. */
export function freshQueue(
  sqs: LocalSqs,
  options: { visibilityTimeoutSeconds?: number; maxReceiveCount?: number } = {},
): Promise<QueuePair> {
  counter += 1;
  return createQueueWithDlq(sqs.client, `test-${process.pid}-${counter}`, options);
}

/** Visible + in flight + delayed messages of a queue. */
export async function queueDepth(client: SQSClient, queueUrl: string): Promise<{ visible: number; inFlight: number }> {
  const answer = await client.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    }),
  );
  return {
    visible: Number(answer.Attributes?.ApproximateNumberOfMessages ?? 0),
    inFlight: Number(answer.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0),
  };
}

/** Receives (and leaves in flight) up to `max` bodies, bounded by `rounds` short polls. */
export async function drainBodies(client: SQSClient, queueUrl: string, max = 100, rounds = 20): Promise<string[]> {
  const bodies: string[] = [];
  for (let round = 0; round < rounds && bodies.length < max; round++) {
    const answer = await client.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
    );
    const messages = answer.Messages ?? [];
    if (messages.length === 0) break;
    bodies.push(...messages.map((m) => m.Body ?? ""));
  }
  return bodies;
}
