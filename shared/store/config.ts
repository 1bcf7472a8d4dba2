/**
 * Store configuration from the AWS SDK's standard variables plus RELEASES_TABLE (and STORE_DRIVER),
 * validated once at start so a typo fails fast with a message naming the variable; and the one place
 * that picks the ReleaseStore implementation for a configuration, like Helm's storage driver selection.
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { DynamoDbReleaseStore } from "./dynamodb-store.ts";
import { StoreConfigError } from "./errors.ts";
import { MemoryReleaseStore } from "./memory-store.ts";
import type { ReleaseStore } from "./release-store.ts";
import { DEFAULT_TABLE_NAME } from "./table-schema.ts";

/** The ReleaseStore implementations (Helm's HELM_DRIVER): DynamoDB, or the process's memory (tests, demos). */
export const STORE_DRIVERS = ["dynamodb", "memory"] as const;
export type StoreDriver = (typeof STORE_DRIVERS)[number];

export interface StoreConfig {
  /** STORE_DRIVER; absent means dynamodb. */
  driver?: StoreDriver;
  region: string;
  /** AWS_ENDPOINT_URL_DYNAMODB: DynamoDB Local, a VPC endpoint... */
  endpoint?: string;
  tableName: string;
  /** Explicit keys (the embedded DynamoDB Local); otherwise the SDK's default provider chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

/** Local engines ignore the region (DynamoDB Local runs with -sharedDb), so one is only required for AWS itself. */
const LOCAL_DEFAULT_REGION = "us-east-1";

export function storeConfigFromEnv(env: NodeJS.ProcessEnv): StoreConfig {
  const driver = optional(env.STORE_DRIVER);
  if (driver !== undefined && !isStoreDriver(driver)) {
    throw new StoreConfigError(`STORE_DRIVER ${JSON.stringify(driver.slice(0, 40))} ${unknownDriver}`);
  }
  // Memory needs no AWS settings: nothing else is read (or required).
  if (driver === "memory") return { driver, region: LOCAL_DEFAULT_REGION, tableName: DEFAULT_TABLE_NAME };
  const endpoint = optional(env.AWS_ENDPOINT_URL_DYNAMODB);
  if (endpoint !== undefined) validateEndpoint(endpoint);
  const region =
    optional(env.AWS_REGION) ?? optional(env.AWS_DEFAULT_REGION) ?? (endpoint ? LOCAL_DEFAULT_REGION : undefined);
  if (region === undefined) {
    throw new StoreConfigError(
      "AWS_REGION is not set: set it to the region of the releases table, or set AWS_ENDPOINT_URL_DYNAMODB for a local engine",
    );
  }
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(region)) {
    throw new StoreConfigError(`AWS_REGION ${JSON.stringify(region)} is not a region name (e.g. eu-west-1)`);
  }
  const tableName = optional(env.RELEASES_TABLE) ?? DEFAULT_TABLE_NAME;
  if (!/^[A-Za-z0-9_.-]{3,255}$/.test(tableName)) {
    throw new StoreConfigError(
      `RELEASES_TABLE ${JSON.stringify(tableName.slice(0, 300))} is not a DynamoDB table name: 3-255 characters of letters, digits, '_', '-', '.'`,
    );
  }
  const config: StoreConfig = endpoint === undefined ? { region, tableName } : { region, endpoint, tableName };
  if (driver !== undefined) config.driver = driver;
  // Keys given in this env win over the SDK's chain (which reads process.env): the env passed in is the truth.
  const accessKeyId = optional(env.AWS_ACCESS_KEY_ID);
  const secretAccessKey = optional(env.AWS_SECRET_ACCESS_KEY);
  if (accessKeyId && secretAccessKey) {
    config.credentials = { accessKeyId, secretAccessKey };
    const sessionToken = optional(env.AWS_SESSION_TOKEN);
    if (sessionToken) config.credentials.sessionToken = sessionToken;
  }
  return config;
}

function optional(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function validateEndpoint(endpoint: string): void {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new StoreConfigError(
      `AWS_ENDPOINT_URL_DYNAMODB ${JSON.stringify(endpoint)} is not a URL (e.g. http://127.0.0.1:8000)`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new StoreConfigError(`AWS_ENDPOINT_URL_DYNAMODB must be an http:// or https:// URL, not ${url.protocol}`);
  }
  if (url.username || url.password) {
    throw new StoreConfigError("AWS_ENDPOINT_URL_DYNAMODB must not contain credentials");
  }
}

export function createDynamoDbClient(config: StoreConfig): DynamoDBClient {
  return new DynamoDBClient({
    region: config.region,
    endpoint: config.endpoint,
    credentials: config.credentials,
    maxAttempts: 3,
    // An unreachable endpoint must fail in seconds, not hang a CLI or a Lambda.
    requestHandler: { connectionTimeout: 3_000, requestTimeout: 20_000 },
  });
}

export function createDocumentClient(config: StoreConfig): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(createDynamoDbClient(config), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
}

const unknownDriver = `is not a store driver: one of ${STORE_DRIVERS.join(", ")}`;

function isStoreDriver(value: string): value is StoreDriver {
  return (STORE_DRIVERS as readonly string[]).includes(value);
}

/** The ReleaseStore for a configuration; another backend is one more case here (and its contract suite run). */
export function openReleaseStore(config: StoreConfig): ReleaseStore {
  const driver: string = config.driver ?? "dynamodb";
  switch (driver) {
    case "dynamodb":
      return new DynamoDbReleaseStore({
        client: createDocumentClient(config),
        tableName: config.tableName,
        region: config.region,
        endpoint: config.endpoint,
      });
    case "memory":
      return new MemoryReleaseStore();
    default:
      throw new StoreConfigError(`store driver ${JSON.stringify(driver)} ${unknownDriver}`);
  }
}
