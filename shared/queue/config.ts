/**
 * SQS client configuration from the SDK's standard variables (AWS_REGION,
 * AWS_ENDPOINT_URL_SQS for fauxqs or a VPC endpoint), validated once at start.
 */
import { SQSClient } from "@aws-sdk/client-sqs";
import { QueueConfigError } from "./errors.ts";

export interface QueueClientConfig {
  region: string;
  /** AWS_ENDPOINT_URL_SQS: fauxqs locally, a VPC endpoint in AWS. */
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

const LOCAL_DEFAULT_REGION = "us-east-1";

type Env = Record<string, string | undefined>;

const trimmed = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);

export function queueClientConfigFromEnv(env: Env): QueueClientConfig {
  const endpoint = trimmed(env.AWS_ENDPOINT_URL_SQS);
  if (endpoint !== undefined) {
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      throw new QueueConfigError(
        `AWS_ENDPOINT_URL_SQS ${JSON.stringify(endpoint)} is not a URL (e.g. http://127.0.0.1:4566)`,
      );
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new QueueConfigError(`AWS_ENDPOINT_URL_SQS must be an http:// or https:// URL, not ${url.protocol}`);
    }
    if (url.username || url.password) throw new QueueConfigError("AWS_ENDPOINT_URL_SQS must not contain credentials");
  }
  const region =
    trimmed(env.AWS_REGION) ?? trimmed(env.AWS_DEFAULT_REGION) ?? (endpoint ? LOCAL_DEFAULT_REGION : undefined);
  if (region === undefined) {
    throw new QueueConfigError(
      "AWS_REGION is not set: set it to the queue's region, or AWS_ENDPOINT_URL_SQS for fauxqs",
    );
  }
  const config: QueueClientConfig = endpoint ? { region, endpoint } : { region };
  const accessKeyId = trimmed(env.AWS_ACCESS_KEY_ID);
  const secretAccessKey = trimmed(env.AWS_SECRET_ACCESS_KEY);
  if (accessKeyId && secretAccessKey) {
    config.credentials = { accessKeyId, secretAccessKey };
    const sessionToken = trimmed(env.AWS_SESSION_TOKEN);
    if (sessionToken) config.credentials.sessionToken = sessionToken;
  }
  return config;
}

/** A queue URL from an env variable: required, and an http(s) URL (SQS queue URLs always are). */
export function queueUrlFromEnv(env: Env, variable: string): string {
  const value = trimmed(env[variable]);
  if (value === undefined) throw new QueueConfigError(`${variable} is not set: the URL of the SQS queue`);
  if (!/^https?:\/\/[^/\s]+\/\S+$/.test(value)) {
    throw new QueueConfigError(`${variable} ${JSON.stringify(value.slice(0, 200))} is not an SQS queue URL`);
  }
  return value;
}

export function createSqsClient(config: QueueClientConfig): SQSClient {
  return new SQSClient({
    region: config.region,
    endpoint: config.endpoint,
    credentials: config.credentials,
    maxAttempts: 3,
    // A dead endpoint must fail a planner in seconds; long polls (20 s) fit inside the request timeout.
    requestHandler: { connectionTimeout: 3_000, requestTimeout: 30_000 },
  });
}
