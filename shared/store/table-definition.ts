/**
 * What every table of the product has in common (the releases table, the snapshots table, ...): string keys PK
 * and SK, on-demand billing, global secondary indexes projecting a few attributes, a TTL attribute; and `init`
 * creating one idempotently. A table is described once as a `TableDefinition` (its table-schema.ts), which its
 * CloudFormation file mirrors (a test per table keeps the two in step).
 */
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  type DynamoDBClient,
  type TableDescription,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from "@aws-sdk/client-dynamodb";
import { type StoreLocation, translateAwsError } from "./dynamodb-errors.ts";
import { StoreUnavailableError } from "./errors.ts";

export interface IndexDefinition {
  name: string;
  partitionKey: string;
  sortKey: string;
  /** The non-key attributes the index carries (INCLUDE projection). */
  attributes: readonly string[];
}

export interface TableDefinition {
  /** What the table holds, for messages ("releases", "snapshots"). */
  holds: string;
  /** The CloudFormation template that mirrors it. */
  template: string;
  indexes: readonly IndexDefinition[];
  /** Epoch seconds; DynamoDB deletes expired items (eventually: every read filters them too). */
  ttlAttribute: string;
}

export interface EnsureTableResult {
  table: string;
  created: boolean;
  /** False on an engine that refuses TTL (some local ones). */
  ttlEnabled: boolean;
}

/** AWS takes seconds to make a table ACTIVE; local engines are immediate. */
const MAX_WAIT_SECONDS = 120;

export function tableInput(tableName: string, definition: TableDefinition): CreateTableCommandInput {
  const keys = ["PK", "SK", ...definition.indexes.flatMap((index) => [index.partitionKey, index.sortKey])];
  return {
    TableName: tableName,
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: keys.map((name) => ({ AttributeName: name, AttributeType: "S" as const })),
    KeySchema: [
      { AttributeName: "PK", KeyType: "HASH" },
      { AttributeName: "SK", KeyType: "RANGE" },
    ],
    GlobalSecondaryIndexes: definition.indexes.map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: "HASH" as const },
        { AttributeName: index.sortKey, KeyType: "RANGE" as const },
      ],
      Projection: { ProjectionType: "INCLUDE" as const, NonKeyAttributes: [...index.attributes] },
    })),
  };
}

/** Creates the table unless it exists (then checks it has the indexes), waits until ACTIVE, enables TTL. */
export async function ensureTable(
  client: DynamoDBClient,
  location: StoreLocation,
  definition: TableDefinition,
): Promise<EnsureTableResult> {
  const send = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw translateAwsError(error, location);
    }
  };
  const table = location.tableName;
  let created = false;
  try {
    await send(() => client.send(new CreateTableCommand(tableInput(table, definition))));
    created = true;
  } catch (error) {
    if ((error as { name?: string }).name !== "ResourceInUseException") throw error;
  }
  // Described once by us (its errors translated): the SDK's waiter would retry a refusal until it timed out.
  const existing = created
    ? undefined
    : (await send(() => client.send(new DescribeTableCommand({ TableName: table })))).Table;
  if (existing) checkIndexes(table, existing, definition);
  if (existing?.TableStatus !== "ACTIVE") {
    try {
      await waitUntilTableExists(
        { client, maxWaitTime: MAX_WAIT_SECONDS, minDelay: 1, maxDelay: 5 },
        { TableName: table },
      );
    } catch (error) {
      throw new StoreUnavailableError(
        `table "${table}" did not become ACTIVE within ${MAX_WAIT_SECONDS} s`,
        undefined,
        {
          cause: error,
        },
      );
    }
  }
  let ttlEnabled = true;
  try {
    await send(() =>
      client.send(
        new UpdateTimeToLiveCommand({
          TableName: table,
          TimeToLiveSpecification: { AttributeName: definition.ttlAttribute, Enabled: true },
        }),
      ),
    );
  } catch (error) {
    // Enabling TTL twice is a ValidationException ("TimeToLive is already enabled"): that is success.
    if (!/already enabled/i.test((error as Error).message ?? "")) {
      if ((error as { name?: string }).name !== "ValidationException") throw error;
      ttlEnabled = false;
    }
  }
  return { table, created, ttlEnabled };
}

function checkIndexes(table: string, description: TableDescription, definition: TableDefinition): void {
  const present = description.GlobalSecondaryIndexes?.map((index) => index.IndexName) ?? [];
  const missing = definition.indexes.map((index) => index.name).filter((name) => !present.includes(name));
  if (missing.length > 0) {
    throw new StoreUnavailableError(
      `table "${table}" exists but lacks the index(es) ${missing.join(", ")}: it is not a ${definition.holds} table created by this tool (see ${definition.template})`,
      "TableShapeMismatch",
    );
  }
}
