/**
 * fauxqs (an SQS emulator, npm) on 127.0.0.1, for `npm start`, the bench and the
 * tests. fauxqs' own startFauxqs() listens on every interface, so we build its
 * app and listen on loopback ourselves. Queues are created through the real SQS
 * API (CreateQueue with a redrive policy), exactly as code would against AWS.
 */
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from "@aws-sdk/client-sqs";
import { buildApp } from "fauxqs";
import { createSqsClient } from "../shared/queue/config.ts";

export interface LocalSqs {
  /** http://127.0.0.1:PORT: AWS_ENDPOINT_URL_SQS. */
  endpoint: string;
  port: number;
  /** An SQS client on the endpoint (dummy credentials: fauxqs does not check them). */
  client: SQSClient;
  /** Variables that point an SQS client in another process here. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startLocalSqs(options: { port?: number; region?: string } = {}): Promise<LocalSqs> {
  const region = options.region ?? "us-east-1";
  const app = buildApp({ logger: false, defaultRegion: region });
  await app.listen({ port: options.port ?? 0, host: "127.0.0.1" });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const endpoint = `http://127.0.0.1:${port}`;
  const env = { AWS_ENDPOINT_URL_SQS: endpoint, AWS_REGION: region };
  const client = createSqsClient({ region, endpoint, credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  return {
    endpoint,
    port,
    client,
    env,
    async stop() {
      client.destroy();
      await app.close();
    },
  };
}

export interface QueuePair {
  queueUrl: string;
  queueArn: string;
  dlqUrl: string;
  dlqArn: string;
}

/** A work queue and its dead-letter queue (redrive after maxReceiveCount receives), idempotently. */
export async function createQueueWithDlq(
  client: SQSClient,
  name: string,
  options: { visibilityTimeoutSeconds?: number; maxReceiveCount?: number } = {},
): Promise<QueuePair> {
  const dlq = await client.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }));
  const dlqArn = await queueArn(client, dlq.QueueUrl!);
  const queue = await client.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: {
        VisibilityTimeout: String(options.visibilityTimeoutSeconds ?? 30),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: options.maxReceiveCount ?? 5 }),
      },
    }),
  );
  return {
    queueUrl: queue.QueueUrl!,
    queueArn: await queueArn(client, queue.QueueUrl!),
    dlqUrl: dlq.QueueUrl!,
    dlqArn,
  };
}

async function queueArn(client: SQSClient, queueUrl: string): Promise<string> {
  const answer = await client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ["QueueArn"] }));
  return answer.Attributes!.QueueArn!;
}
