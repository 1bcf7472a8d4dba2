/** The ChatJob queue over SQS (shared/queue): one message per command, retried by sendInBatches. */
import type { SQSClient } from "@aws-sdk/client-sqs";
import type { ChatJob } from "../../shared/chatops/job.ts";
import { ChatDeliveryError } from "../../shared/notify/errors.ts";
import { sendInBatches } from "../../shared/queue/send-batch.ts";
import type { ChatJobQueue } from "./types.ts";

export function sqsChatJobQueue(client: SQSClient, queueUrl: string): ChatJobQueue {
  return {
    async send(job: ChatJob) {
      // Few, fast attempts: the whole acknowledgement must fit in Slack's 3 s.
      const result = await sendInBatches(client, queueUrl, [{ id: "job", body: JSON.stringify(job) }], {
        maxAttempts: 3,
        backoffMs: 50,
      });
      if (result.failed.length > 0) {
        throw new ChatDeliveryError(
          `the chat job was not queued: ${result.failed[0].code} ${result.failed[0].message}`,
        );
      }
    },
  };
}
