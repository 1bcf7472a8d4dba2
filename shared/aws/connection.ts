/**
 * How every AWS client here connects: region, endpoint override and keys from the SDK's standard variables,
 * validated once at start (a typo fails fast with a message naming the variable), and the client options
 * that bound each call (an unreachable endpoint fails in seconds, not hangs a CLI or a Lambda).
 */
import { type Env, envValue, type Fail } from "../input/env.ts";

export interface AwsConnection {
  region: string;
  /** The endpoint override (`AWS_ENDPOINT_URL_<SERVICE>`): a local engine, a VPC endpoint. */
  endpoint?: string;
  /** Keys given in this env; otherwise the SDK's default provider chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

/** Local engines ignore the region, so one is only required for AWS itself. */
const LOCAL_DEFAULT_REGION = "us-east-1";

/** The services read here: their endpoint variable, an example of a local engine's URL, what the region is for. */
const AWS_SERVICES = {
  dynamodb: {
    endpointVariable: "AWS_ENDPOINT_URL_DYNAMODB",
    example: "http://127.0.0.1:8000",
    regionHint: "set it to the region of the releases table, or set AWS_ENDPOINT_URL_DYNAMODB for a local engine",
  },
  sqs: {
    endpointVariable: "AWS_ENDPOINT_URL_SQS",
    example: "http://127.0.0.1:4566",
    regionHint: "set it to the queue's region, or AWS_ENDPOINT_URL_SQS for fauxqs",
  },
  logs: {
    // The clusters' audit logs (docs/who.md): each is read in its cluster's region, so only the endpoint matters.
    endpointVariable: "AWS_ENDPOINT_URL_CLOUDWATCH_LOGS",
    example: "http://127.0.0.1:4510",
    regionHint: "set it to a region (each cluster's audit log is read in the cluster's own region)",
  },
} as const;

/**
 * An AWS client's region, endpoint and keys from AWS_REGION / AWS_DEFAULT_REGION, the service's
 * AWS_ENDPOINT_URL_<SERVICE> and AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN. The endpoint must
 * be an http(s) URL without credentials; with one, the region may be left out. Keys given in this env win over
 * the SDK's chain (which reads process.env): the env passed in is the truth.
 */
export function awsConnectionFromEnv(env: Env, service: keyof typeof AWS_SERVICES, fail: Fail): AwsConnection {
  const { endpointVariable, example, regionHint } = AWS_SERVICES[service];
  const endpoint = envValue(env[endpointVariable]);
  if (endpoint !== undefined) checkEndpoint(endpointVariable, endpoint, example, fail);
  const region =
    envValue(env.AWS_REGION) ?? envValue(env.AWS_DEFAULT_REGION) ?? (endpoint ? LOCAL_DEFAULT_REGION : undefined);
  if (region === undefined) throw fail(`AWS_REGION is not set: ${regionHint}`);
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(region)) {
    throw fail(`AWS_REGION ${JSON.stringify(region)} is not a region name (e.g. eu-west-1)`);
  }
  const connection: AwsConnection = endpoint === undefined ? { region } : { region, endpoint };
  const accessKeyId = envValue(env.AWS_ACCESS_KEY_ID);
  const secretAccessKey = envValue(env.AWS_SECRET_ACCESS_KEY);
  if (accessKeyId && secretAccessKey) {
    connection.credentials = { accessKeyId, secretAccessKey };
    const sessionToken = envValue(env.AWS_SESSION_TOKEN);
    if (sessionToken) connection.credentials.sessionToken = sessionToken;
  }
  return connection;
}

function checkEndpoint(variable: string, endpoint: string, example: string, fail: Fail): void {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw fail(`${variable} ${JSON.stringify(endpoint)} is not a URL (e.g. ${example})`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw fail(`${variable} must be an http:// or https:// URL, not ${url.protocol}`);
  }
  if (url.username || url.password) throw fail(`${variable} must not contain credentials`);
}

/** The options of an SDK client on `connection`: three attempts, a 3 s connection timeout, `requestTimeoutMs` per call. */
export function awsClientOptions(connection: AwsConnection, requestTimeoutMs: number) {
  return {
    region: connection.region,
    endpoint: connection.endpoint,
    credentials: connection.credentials,
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 3_000, requestTimeout: requestTimeoutMs },
  };
}
