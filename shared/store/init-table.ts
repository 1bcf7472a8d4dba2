/** `init`: create the releases table and enable TTL, idempotently. */
import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  UpdateTimeToLiveCommand,
} from "@aws-sdk/client-dynamodb";
import { type StoreLocation, translateAwsError } from "./dynamodb-errors.ts";
import { StoreUnavailableError } from "./errors.ts";
import { createTableInput, DEPLOYED_INDEX, RELEASES_INDEX, TTL_ATTRIBUTE } from "./table-schema.ts";

export interface EnsureTableResult {
  table: string;
  created: boolean;
  ttlEnabled: boolean;
}

/** Bounded wait for ACTIVE: AWS takes seconds, local engines are immediate. */
const MAX_STATUS_POLLS = 120;

export async function ensureReleasesTable(client: DynamoDBClient, location: StoreLocation): Promise<EnsureTableResult> {
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
    await send(() => client.send(new CreateTableCommand(createTableInput(table))));
    created = true;
  } catch (error) {
    if ((error as { name?: string }).name !== "ResourceInUseException") throw error;
  }
  for (let poll = 0; ; poll++) {
    const { Table } = await send(() => client.send(new DescribeTableCommand({ TableName: table })));
    if (!created) checkShape(table, Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName ?? "") ?? []);
    if (Table?.TableStatus === "ACTIVE") break;
    if (poll === MAX_STATUS_POLLS) {
      throw new StoreUnavailableError(`table "${table}" did not become ACTIVE (status ${Table?.TableStatus})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  let ttlEnabled = true;
  try {
    await send(() =>
      client.send(
        new UpdateTimeToLiveCommand({
          TableName: table,
          TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
        }),
      ),
    );
  } catch (error) {
    // Enabling TTL twice is a ValidationException ("TimeToLive is already enabled"): that is success.
    const message = (error as Error).message ?? "";
    if (!/already enabled/i.test(message)) {
      if ((error as { name?: string }).name !== "ValidationException") throw error;
      ttlEnabled = false;
    }
  }
  return { table, created, ttlEnabled };
}

function checkShape(table: string, indexes: string[]): void {
  const missing = [DEPLOYED_INDEX.name, RELEASES_INDEX.name].filter((name) => !indexes.includes(name));
  if (missing.length) {
    throw new StoreUnavailableError(
      `table "${table}" exists but lacks the index(es) ${missing.join(", ")}: it was not created by this tool (see infra/releases-table.yml)`,
      "TableShapeMismatch",
    );
  }
}
