/**
 * The few DynamoDB calls the store makes, each bounded and with SDK errors turned
 * into the store's domain errors (endpoint and table named).
 */
import {
  BatchGetCommand,
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
} from "@aws-sdk/lib-dynamodb";
import { type StoreLocation, translateAwsError } from "./dynamodb-errors.ts";
import type { Item } from "./dynamodb-items.ts";
import { StoreUnavailableError } from "./errors.ts";

/** Bounds every internal loop: filtered listing pages, retries of unprocessed batch items. */
const MAX_QUERY_ROUNDS = 25;
const MAX_BATCH_RETRIES = 8;

export class TableClient {
  readonly tableName: string;
  readonly #db: DynamoDBDocumentClient;
  readonly #location: StoreLocation;

  constructor(db: DynamoDBDocumentClient, location: StoreLocation) {
    this.#db = db;
    this.#location = location;
    this.tableName = location.tableName;
  }

  async batchDelete(keys: Item[]): Promise<void> {
    await this.batchWrite(keys.map((key) => ({ DeleteRequest: { Key: { PK: key.PK, SK: key.SK } } })));
  }

  async batchWrite(requests: object[]): Promise<void> {
    // 25 items per call is DynamoDB's limit; 20 chunks keep a call under its 16 MB cap with room to spare.
    await batchWriteAll((command) => this.send(command), this.tableName, requests, { perCall: 20 });
  }

  /**
   * Reads up to limit+1 items (to know whether another page exists), across DynamoDB's 1 MB pages, boundedly.
   * A filtered query reads ahead in big pages: callers' cursors are positions, not LastEvaluatedKeys.
   */
  async collect(input: QueryCommandInput, limit: number): Promise<{ items: Item[]; more: boolean; lastKey?: Item }> {
    const items: Item[] = [];
    let startKey = input.ExclusiveStartKey;
    for (let round = 0; round < MAX_QUERY_ROUNDS; round++) {
      const result = await this.send(
        new QueryCommand({
          ...input,
          ExclusiveStartKey: startKey,
          Limit: input.FilterExpression ? 1000 : limit + 1 - items.length,
        }),
      );
      items.push(...((result.Items ?? []) as Item[]));
      startKey = result.LastEvaluatedKey;
      if (items.length > limit) return { items: items.slice(0, limit), more: true };
      if (!startKey) return { items, more: false };
    }
    // Filtered listings can need many pages; hand back what we have with a cursor to continue.
    return { items, more: true, lastKey: startKey };
  }

  async queryAll(input: QueryCommandInput, each: (item: Item) => void): Promise<void> {
    let startKey: Record<string, unknown> | undefined;
    // A 5 MB manifest is ~16 chunks, ~6 pages; 10,000 pages is far beyond any real release.
    for (let round = 0; round < 10_000; round++) {
      const result = await this.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
      for (const item of result.Items ?? []) each(item as Item);
      startKey = result.LastEvaluatedKey;
      if (!startKey) return;
    }
  }

  async allKeys(input: QueryCommandInput): Promise<Item[]> {
    const keys: Item[] = [];
    await this.queryAll({ ...input, ProjectionExpression: "PK, SK", ConsistentRead: true }, (item) => keys.push(item));
    return keys;
  }

  /**
   * BatchGetItem (consistent) of any number of keys, 100 per call, unprocessed keys retried (bounded);
   * the items found, in no particular order.
   */
  async batchGet(keys: Item[]): Promise<Item[]> {
    const found: Item[] = [];
    for (let start = 0; start < keys.length; start += 100) {
      let pending: Item[] = keys.slice(start, start + 100);
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt === MAX_BATCH_RETRIES) {
          throw new StoreUnavailableError(
            `DynamoDB table "${this.tableName}" left keys unprocessed after ${MAX_BATCH_RETRIES} attempts (throttled)`,
            "StoreThrottled",
          );
        }
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
        const result = await this.send(
          new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: pending, ConsistentRead: true } } }),
        );
        found.push(...((result.Responses?.[this.tableName] as Item[] | undefined) ?? []));
        pending = (result.UnprocessedKeys?.[this.tableName]?.Keys as Item[] | undefined) ?? [];
      }
    }
    return found;
  }

  async getItem(pk: string, sk: string, projection?: string): Promise<Item | undefined> {
    const result = await this.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { PK: pk, SK: sk },
        ConsistentRead: true,
        ProjectionExpression: projection,
      }),
    );
    return result.Item as Item | undefined;
  }

  /** Runs a transaction; returns undefined on success, or the positional cancellation reason codes. */
  async transact(actions: object[]): Promise<string[] | undefined> {
    try {
      await this.send(new TransactWriteCommand({ TransactItems: actions as never }));
      return undefined;
    } catch (error) {
      if ((error as { name?: string }).name !== "TransactionCanceledException") throw error;
      const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
      return actions.map((_, i) => reasons[i]?.Code ?? "None");
    }
  }

  // biome-ignore lint/suspicious/noExplicitAny: each command has its own output type
  async send(command: object): Promise<any> {
    try {
      return await this.#db.send(command as never);
    } catch (error) {
      throw translateAwsError(error, this.#location);
    }
  }
}

/**
 * BatchWriteItem of any number of requests to one table: `perCall` per call (DynamoDB allows 25), unprocessed
 * items retried with backoff, a bounded number of times, then a StoreUnavailableError (throttled). `send` is the
 * caller's choke point (its error translation and write accounting); `written` is told how many each call wrote.
 */
export async function batchWriteAll(
  // biome-ignore lint/suspicious/noExplicitAny: the choke points return each command's own output type
  send: (command: BatchWriteCommand) => Promise<any>,
  tableName: string,
  requests: object[],
  options: { perCall?: number; written?: (count: number) => void } = {},
): Promise<void> {
  const perCall = options.perCall ?? 25;
  for (let start = 0; start < requests.length; start += perCall) {
    let pending: object[] = requests.slice(start, start + perCall);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === MAX_BATCH_RETRIES) {
        throw new StoreUnavailableError(
          `DynamoDB table "${tableName}" left items unprocessed after ${MAX_BATCH_RETRIES} attempts (throttled)`,
          "StoreThrottled",
        );
      }
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
      const result = await send(new BatchWriteCommand({ RequestItems: { [tableName]: pending as never } }));
      const left = (result.UnprocessedItems?.[tableName] as object[] | undefined) ?? [];
      options.written?.(pending.length - left.length);
      pending = left;
    }
  }
}
