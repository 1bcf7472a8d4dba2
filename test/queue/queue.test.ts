/** shared/queue on a real SQS protocol (fauxqs): batched sends with retries, and the local Lambda poller's semantics. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { SQSClient } from "@aws-sdk/client-sqs";
import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import { createLocalPoller } from "../../local/queue/poller.ts";
import { sendInBatches } from "../../shared/queue/send-batch.ts";
import { drainBodies, freshQueue, type LocalSqs, queueDepth, startTestSqs } from "../support/fauxqs.ts";

let sqs: LocalSqs;
before(async () => {
  sqs = await startTestSqs();
});
after(() => sqs.stop());

const messages = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `m${i}`, body: JSON.stringify({ n: i }) }));

test("sendInBatches sends 25 messages in 3 calls of at most 10", async () => {
  const queue = await freshQueue(sqs);
  const result = await sendInBatches(sqs.client, queue.queueUrl, messages(25));
  assert.equal(result.sent.length, 25);
  assert.deepEqual(result.failed, []);
  assert.equal(result.calls, 3);
  const bodies = await drainBodies(sqs.client, queue.queueUrl);
  assert.deepEqual(
    bodies.map((b) => JSON.parse(b).n).sort((a, b) => a - b),
    [...Array(25).keys()],
  );
});

test("sendInBatches retries the entries SQS failed on its side and reports sender faults without retrying", async () => {
  // SQS never fails entries on demand, so a client that fails some entries of a real call stands in for throttling.
  const queue = await freshQueue(sqs);
  let call = 0;
  const flaky = {
    send: async (command: { input: { Entries: { Id: string }[] } }) => {
      call++;
      if (call > 1) return sqs.client.send(command as never);
      // First call: m1 is "throttled" and m2 "malformed": only the others reach the queue.
      command.input.Entries = command.input.Entries.filter((e) => e.Id !== "m1" && e.Id !== "m2");
      const real = (await sqs.client.send(command as never)) as { Successful: { Id: string; MessageId: string }[] };
      return {
        Successful: real.Successful,
        Failed: [
          { Id: "m1", Code: "InternalError", SenderFault: false, Message: "try again" },
          { Id: "m2", Code: "InvalidMessageContents", SenderFault: true, Message: "bad body" },
        ],
      };
    },
  } as unknown as SQSClient;
  const result = await sendInBatches(flaky, queue.queueUrl, messages(3), { sleep: async () => {} });
  assert.equal(call, 2);
  assert.deepEqual(result.sent.map((s) => s.id).sort(), ["m0", "m1"]);
  assert.deepEqual(result.failed, [{ id: "m2", code: "InvalidMessageContents", message: "bad body" }]);
  assert.deepEqual((await drainBodies(sqs.client, queue.queueUrl)).sort(), ['{"n":0}', '{"n":1}']);
});

test("sendInBatches gives up after maxAttempts on a dead endpoint and reports every entry", async () => {
  const dead = {
    send: async () => {
      throw Object.assign(new Error("connect ECONNREFUSED"), { name: "Error", code: "ECONNREFUSED" });
    },
  } as unknown as SQSClient;
  const result = await sendInBatches(dead, "http://127.0.0.1:1/q", messages(12), {
    maxAttempts: 2,
    sleep: async () => {},
  });
  assert.equal(result.failed.length, 12);
  assert.equal(result.calls, 4);
});

test("the local poller hands a Lambda SQS event to the handler and deletes all but the reported failures", async () => {
  const queue = await freshQueue(sqs, { visibilityTimeoutSeconds: 1, maxReceiveCount: 2 });
  await sendInBatches(sqs.client, queue.queueUrl, messages(4));
  const seen: SQSEvent[] = [];
  const poller = createLocalPoller({
    client: sqs.client,
    queueUrl: queue.queueUrl,
    waitTimeSeconds: 0,
    handler: async (event, context): Promise<SQSBatchResponse> => {
      seen.push(event);
      assert.ok(context.getRemainingTimeInMillis() > 0);
      const failures = event.Records.filter((r) => JSON.parse(r.body).n === 3).map((r) => ({
        itemIdentifier: r.messageId,
      }));
      return { batchItemFailures: failures };
    },
  });
  const first = await poller.pollOnce();
  assert.equal(first.received, 4);
  assert.equal(first.deleted, 3);
  assert.equal(first.failed, 1);
  const record = seen[0].Records[0];
  assert.equal(record.eventSource, "aws:sqs");
  assert.equal(record.eventSourceARN, queue.queueArn);
  assert.equal(record.attributes.ApproximateReceiveCount, "1");
  assert.ok(record.receiptHandle);
  // The failed message comes back after its visibility timeout, then goes to the DLQ after maxReceiveCount.
  let outcome = { received: 0 };
  for (let i = 0; i < 40 && outcome.received === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    outcome = await poller.pollOnce();
  }
  assert.equal(outcome.received, 1);
  assert.equal(seen.at(-1)!.Records[0].attributes.ApproximateReceiveCount, "2");
  let dlq: string[] = [];
  for (let i = 0; i < 40 && dlq.length === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    await poller.pollOnce();
    dlq = await drainBodies(sqs.client, queue.dlqUrl);
  }
  assert.deepEqual(
    dlq.map((b) => JSON.parse(b).n),
    [3],
  );
  assert.deepEqual(await queueDepth(sqs.client, queue.queueUrl), { visible: 0, inFlight: 0 });
});

test("a handler that throws deletes nothing; an unknown failure identifier fails the whole batch (Lambda's rules)", async () => {
  const queue = await freshQueue(sqs, { visibilityTimeoutSeconds: 30 });
  await sendInBatches(sqs.client, queue.queueUrl, messages(2));
  const throwing = createLocalPoller({
    client: sqs.client,
    queueUrl: queue.queueUrl,
    waitTimeSeconds: 0,
    onError: () => {},
    handler: async () => {
      throw new Error("boom");
    },
  });
  const thrown = await throwing.pollOnce();
  assert.deepEqual(thrown, { received: 2, failed: 2, deleted: 0, threw: true });
  assert.deepEqual(await queueDepth(sqs.client, queue.queueUrl), { visible: 0, inFlight: 2 });

  const other = await freshQueue(sqs, { visibilityTimeoutSeconds: 30 });
  await sendInBatches(sqs.client, other.queueUrl, messages(2));
  const lying = createLocalPoller({
    client: sqs.client,
    queueUrl: other.queueUrl,
    waitTimeSeconds: 0,
    handler: async () => ({ batchItemFailures: [{ itemIdentifier: "not-in-this-batch" }] }),
  });
  assert.equal((await lying.pollOnce()).deleted, 0);
});

test("start/stop polls continuously and stop waits for the batch in flight", async () => {
  const queue = await freshQueue(sqs);
  await sendInBatches(sqs.client, queue.queueUrl, messages(15));
  let handled = 0;
  const poller = createLocalPoller({
    client: sqs.client,
    queueUrl: queue.queueUrl,
    waitTimeSeconds: 0,
    concurrency: 2,
    handler: async (event) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      handled += event.Records.length;
      return { batchItemFailures: [] };
    },
  });
  poller.start();
  for (let i = 0; i < 100 && handled < 15; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  await poller.stop();
  assert.equal(handled, 15);
  assert.deepEqual(await queueDepth(sqs.client, queue.queueUrl), { visible: 0, inFlight: 0 });
});
