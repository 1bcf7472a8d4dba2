/** `init`: create the snapshots table and enable its TTL, idempotently. */
import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  UpdateTimeToLiveCommand,
} from "@aws-sdk/client-dynamodb";
import { type StoreLocation, translateAwsError } from "../store/dynamodb-errors.ts";
import { StoreUnavailableError } from "../store/errors.ts";
import { createSnapshotsTableInput, FLEET_INDEX, SNAPSHOT_TTL_ATTRIBUTE } from "./table-schema.ts";

const MAX_STATUS_POLLS = 120;

export async function ensureSnapshotsTable(
  client: DynamoDBClient,
  location: StoreLocation,
): Promise<{ created: boolean }> {
  const send = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw translateAwsError(error, location);
    }
  };
  let created = false;
  try {
    await send(() => client.send(new CreateTableCommand(createSnapshotsTableInput(location.tableName))));
    created = true;
  } catch (error) {
    if ((error as { name?: string }).name !== "ResourceInUseException") throw error;
  }
  for (let poll = 0; ; poll++) {
    const { Table } = await send(() => client.send(new DescribeTableCommand({ TableName: location.tableName })));
    const indexes = Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName) ?? [];
    if (!indexes.includes(FLEET_INDEX.name)) {
      throw new StoreUnavailableError(
        `table "${location.tableName}" exists but lacks the ${FLEET_INDEX.name} index: it is not a snapshots table (see infra/snapshots-table.yml)`,
        "TableShapeMismatch",
      );
    }
    if (Table?.TableStatus === "ACTIVE") break;
    if (poll === MAX_STATUS_POLLS)
      throw new StoreUnavailableError(`table "${location.tableName}" did not become ACTIVE`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  try {
    await send(() =>
      client.send(
        new UpdateTimeToLiveCommand({
          TableName: location.tableName,
          TimeToLiveSpecification: { AttributeName: SNAPSHOT_TTL_ATTRIBUTE, Enabled: true },
        }),
      ),
    );
  } catch (error) {
    // Enabling TTL twice is a ValidationException ("already enabled"); some local engines refuse TTL calls: both are fine.
    const name = (error as { name?: string }).name;
    if (!/already enabled/i.test((error as Error).message ?? "") && name !== "ValidationException") throw error;
  }
  return { created };
}
