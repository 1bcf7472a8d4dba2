/**
 * The snapshots table as the DynamoDB snapshot store and its audit-run records use it: one choke point for
 * every command, so AWS errors are translated once (a failed condition is returned as `false` by
 * `conditional`, never translated), and the write units DynamoDB reports are counted once.
 */
import {
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import { type StoreLocation, translateAwsError } from "../store/dynamodb-errors.ts";

export type Item = Record<string, unknown>;

/** Bounds a filtered Query's page loop (expired items are skipped client-side). */
const MAX_ROUNDS = 25;

/**
 * What the store wrote, for the bench's per-release figures: items put or updated, and the write capacity
 * units DynamoDB reported (ReturnConsumedCapacity TOTAL: indexes included, 1 unit per KB of the whole item
 * for an UpdateItem, doubled in transactions).
 */
export interface WriteStats {
  items: number;
  writeUnits: number;
}

export class SnapshotTable {
  readonly stats: WriteStats = { items: 0, writeUnits: 0 };
  readonly name: string;
  readonly #db: DynamoDBDocumentClient;
  readonly #location: StoreLocation;

  constructor(db: DynamoDBDocumentClient, location: StoreLocation) {
    this.#db = db;
    this.#location = location;
    this.name = location.tableName;
  }

  /** Up to `want` items of a Query that `keep` accepts, following pages (bounded). */
  async collect(input: QueryCommandInput, want: number, keep: (item: Item) => boolean): Promise<Item[]> {
    const items: Item[] = [];
    let startKey: Record<string, unknown> | undefined;
    for (let round = 0; round < MAX_ROUNDS && items.length < want; round++) {
      const result = await this.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
      items.push(...((result.Items ?? []) as Item[]).filter(keep));
      startKey = result.LastEvaluatedKey;
      if (!startKey) break;
    }
    return items.slice(0, want);
  }

  async get(pk: string, sk: string): Promise<Item | undefined> {
    const result = await this.send(
      new GetCommand({ TableName: this.name, Key: { PK: pk, SK: sk }, ConsistentRead: true }),
    );
    return result.Item as Item | undefined;
  }

  /** True when written, false when the condition failed. */
  async conditional(command: object): Promise<boolean> {
    try {
      await this.send(command);
      return true;
    } catch (error) {
      const name = (error as { name?: string }).name;
      const cause = (error as { cause?: { name?: string } }).cause?.name;
      if ([name, cause].some((n) => n === "ConditionalCheckFailedException" || n === "TransactionCanceledException")) {
        return false;
      }
      throw error;
    }
  }

  // biome-ignore lint/suspicious/noExplicitAny: each command has its own output type
  async send(command: object): Promise<any> {
    const input = (command as { input?: Record<string, unknown> }).input;
    const isWrite =
      command instanceof PutCommand ||
      command instanceof UpdateCommand ||
      command instanceof TransactWriteCommand ||
      command instanceof BatchWriteCommand;
    if (input && isWrite) input.ReturnConsumedCapacity = "TOTAL";
    try {
      const result = await this.#db.send(command as never);
      if (isWrite) {
        const consumed = (result as { ConsumedCapacity?: unknown }).ConsumedCapacity ?? [];
        for (const used of [consumed].flat() as { CapacityUnits?: number }[])
          this.stats.writeUnits += used?.CapacityUnits ?? 0;
      }
      return result;
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (name === "ConditionalCheckFailedException" || name === "TransactionCanceledException") throw error;
      throw translateAwsError(error, this.#location);
    }
  }
}
