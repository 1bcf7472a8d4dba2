/**
 * Store configuration from the AWS SDK's standard variables plus RELEASES_TABLE (and STORE_DRIVER),
 * validated once at start so a typo fails fast with a message naming the variable; and the one place
 * that picks the ReleaseStore implementation for a configuration, like Helm's storage driver selection (and the
 * sync state's, in the same table: one STORE_DRIVER for every store; the history's: shared/snapshots/config.ts).
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { type AwsConnection, awsClientOptions, awsConnectionFromEnv } from "../aws/connection.ts";
import { envValue } from "../input/env.ts";
import { DynamoDbReleaseStore } from "./dynamodb-store.ts";
import { Table } from "./dynamodb-table.ts";
import { StoreConfigError } from "./errors.ts";
import { MemoryReleaseStore } from "./memory-store.ts";
import type { ReleaseStore } from "./release-store.ts";
import type { SyncStateStore } from "./sync-state.ts";
import { DynamoDbSyncStateStore } from "./sync-state-dynamodb.ts";
import { MemorySyncStateStore } from "./sync-state-memory.ts";
import { DEFAULT_TABLE_NAME } from "./table-schema.ts";

/** The ReleaseStore implementations (Helm's HELM_DRIVER): DynamoDB, or the process's memory (tests, demos). */
export const STORE_DRIVERS = ["dynamodb", "memory"] as const;
export type StoreDriver = (typeof STORE_DRIVERS)[number];

/** Region, endpoint (AWS_ENDPOINT_URL_DYNAMODB: DynamoDB Local, a VPC endpoint...) and explicit keys (the embedded
 * DynamoDB Local) as every AWS client here reads them, plus the table. */
export interface StoreConfig extends AwsConnection {
  /** STORE_DRIVER; absent means dynamodb. */
  driver?: StoreDriver;
  tableName: string;
}

/** The memory driver's nominal region (it reads no AWS settings). */
const LOCAL_DEFAULT_REGION = "us-east-1";

export function storeConfigFromEnv(env: NodeJS.ProcessEnv): StoreConfig {
  const driver = envValue(env.STORE_DRIVER);
  if (driver !== undefined && !isStoreDriver(driver)) {
    throw new StoreConfigError(`STORE_DRIVER ${JSON.stringify(driver.slice(0, 40))} ${unknownDriver}`);
  }
  // Memory needs no AWS settings: nothing else is read (or required).
  if (driver === "memory") return { driver, region: LOCAL_DEFAULT_REGION, tableName: DEFAULT_TABLE_NAME };
  const connection = awsConnectionFromEnv(env, "dynamodb", (message) => new StoreConfigError(message));

  const tableName = envValue(env.RELEASES_TABLE) ?? DEFAULT_TABLE_NAME;
  if (!/^[A-Za-z0-9_.-]{3,255}$/.test(tableName)) {
    throw new StoreConfigError(
      `RELEASES_TABLE ${JSON.stringify(tableName.slice(0, 300))} is not a DynamoDB table name: 3-255 characters of letters, digits, '_', '-', '.'`,
    );
  }
  const config: StoreConfig = { ...connection, tableName };
  if (driver !== undefined) config.driver = driver;
  return config;
}

export function createDynamoDbClient(config: StoreConfig): DynamoDBClient {
  // An unreachable endpoint must fail in seconds, not hang a CLI or a Lambda.
  return new DynamoDBClient(awsClientOptions(config, 20_000));
}

export function createDocumentClient(config: StoreConfig): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(createDynamoDbClient(config), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
}

/**
 * One document client per store configuration for every store on it: a client keeps its own connections, so a
 * second one for the same table is a second TLS handshake on a cold start (the API opens the releases, the
 * attributions, the clusters' facts and the chat replay ledger on one configuration).
 */
const sharedClients = new WeakMap<StoreConfig, DynamoDBDocumentClient>();

function documentClientOf(config: StoreConfig): DynamoDBDocumentClient {
  let client = sharedClients.get(config);
  if (!client) {
    client = createDocumentClient(config);
    sharedClients.set(config, client);
  }
  return client;
}

const unknownDriver = `is not a store driver: one of ${STORE_DRIVERS.join(", ")}`;

function isStoreDriver(value: string): value is StoreDriver {
  return (STORE_DRIVERS as readonly string[]).includes(value);
}

/**
 * A store kept in the releases table, or in the process's memory, by the one STORE_DRIVER: every store that shares
 * the table (the sync state, the attributions, the clusters' facts, the chat replay ledger) is opened through here,
 * on one `Table` of the configuration (AWS errors translated once).
 */
export function onReleasesTable<T>(config: StoreConfig, memory: () => T, dynamodb: (table: Table) => T): T {
  if ((config.driver ?? "dynamodb") === "memory") return memory();
  return dynamodb(new Table(documentClientOf(config), config));
}

/** The sync state for a configuration: in the releases table (the same table as openReleaseStore), or memory. */
export function openSyncStateStore(config: StoreConfig): SyncStateStore {
  return onReleasesTable<SyncStateStore>(
    config,
    () => new MemorySyncStateStore(),
    (table) => new DynamoDbSyncStateStore(table),
  );
}

/** The ReleaseStore for a configuration; another backend is one more case here (and its contract suite run). */
export function openReleaseStore(config: StoreConfig): ReleaseStore {
  const driver: string = config.driver ?? "dynamodb";
  switch (driver) {
    case "dynamodb":
      return new DynamoDbReleaseStore({
        client: documentClientOf(config),
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
