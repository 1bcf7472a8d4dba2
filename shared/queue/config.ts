/**
 * SQS client configuration from the SDK's standard variables (AWS_REGION,
 * AWS_ENDPOINT_URL_SQS for fauxqs or a VPC endpoint), validated once at start.
 */
import { SQSClient } from "@aws-sdk/client-sqs";
import { type AwsConnection, awsClientOptions, awsConnectionFromEnv } from "../aws/connection.ts";
import { type Env, envValue } from "../input/env.ts";
import { QueueConfigError } from "./errors.ts";

export type QueueClientConfig = AwsConnection;

export function queueClientConfigFromEnv(env: Env): QueueClientConfig {
  return awsConnectionFromEnv(env, "sqs", (message) => new QueueConfigError(message));
}

/** A queue URL from an env variable: required, and an http(s) URL (SQS queue URLs always are). */
export function queueUrlFromEnv(env: Env, variable: string): string {
  const value = envValue(env[variable]);
  if (value === undefined) throw new QueueConfigError(`${variable} is not set: the URL of the SQS queue`);
  if (!/^https?:\/\/[^/\s]+\/\S+$/.test(value)) {
    throw new QueueConfigError(`${variable} ${JSON.stringify(value.slice(0, 200))} is not an SQS queue URL`);
  }
  return value;
}

export function createSqsClient(config: QueueClientConfig): SQSClient {
  // A dead endpoint must fail a planner in seconds; long polls (20 s) fit inside the request timeout.
  return new SQSClient(awsClientOptions(config, 30_000));
}
