/**
 * One DynamoDB table as a store uses it (the releases table, the snapshots table and its audit runs): the one
 * choke point for every command, so AWS errors become the store's domain errors once (endpoint and table named);
 * a failed condition is an answer (`conditional`, `transact`), never translated; batches are split to DynamoDB's
 * limits with their unprocessed items retried (bounded, shared/retry.ts); queries follow pages, boundedly; and, when
 * asked, the write units DynamoDB reports are counted (the bench's figures).
 */
import {
  BatchGetCommand,
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import { requestBudget } from "../request-budget.ts";
import { retryLeftovers } from "../retry.ts";
import { type StoreLocation, translateAwsError } from "./dynamodb-errors.ts";
import { StoreUnavailableError } from "./errors.ts";

export type Item = Record<string, unknown>;

/** Bounds every internal loop: filtered listing pages, calls per batch (the first included). */
const MAX_QUERY_ROUNDS = 25;
const BATCH_RETRY = { maxAttempts: 8, baseMs: 100, capMs: 5_000 };
/** DynamoDB's own limits per call. */
const BATCH_GET_KEYS = 100;
const BATCH_WRITE_ITEMS = 25;

/**
 * What a table wrote, for the bench's per-release figures: items put or updated (counted by the store), and the
 * write capacity units DynamoDB reported (ReturnConsumedCapacity TOTAL: indexes included, 1 unit per KB of the
 * whole item for an UpdateItem, doubled in transactions).
 */
export interface WriteStats {
  items: number;
  writeUnits: number;
}

export interface TableOptions {
  /** Ask DynamoDB for the write units of every write and add them to `stats` (off: the requests stay as they are). */
  countWriteUnits?: boolean;
}

const CONDITION_FAILED = new Set(["ConditionalCheckFailedException", "TransactionCanceledException"]);

export class Table {
  readonly name: string;
  readonly stats: WriteStats = { items: 0, writeUnits: 0 };
  readonly #db: DynamoDBDocumentClient;
  readonly #location: StoreLocation;
  readonly #countWriteUnits: boolean;

  constructor(db: DynamoDBDocumentClient, location: StoreLocation, options: TableOptions = {}) {
    this.#db = db;
    this.#location = location;
    this.name = location.tableName;
    this.#countWriteUnits = options.countWriteUnits ?? false;
  }

  async get(pk: string, sk: string, projection?: string): Promise<Item | undefined> {
    const result = await this.send(
      new GetCommand({
        TableName: this.name,
        Key: { PK: pk, SK: sk },
        ConsistentRead: true,
        ProjectionExpression: projection,
      }),
    );
    return result.Item as Item | undefined;
  }

  /** Writes one whole item (`get`'s twin), replacing any item of its key. */
  async put(item: Item & { PK: string; SK: string }): Promise<void> {
    await this.send(new PutCommand({ TableName: this.name, Item: item }));
  }

  /** A conditional write (Put, Update, Delete or a transaction): true when written, false when a condition failed. */
  async conditional(command: object): Promise<boolean> {
    try {
      await this.send(command);
      return true;
    } catch (error) {
      if (CONDITION_FAILED.has((error as { name?: string }).name ?? "")) return false;
      throw error;
    }
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

  /**
   * Up to `limit` items of a Query (that `keep` accepts, when given), across DynamoDB's 1 MB pages, boundedly;
   * `more` when another exists (limit+1 are read to know). A filtered query reads ahead in big pages: callers'
   * cursors are positions, not LastEvaluatedKeys. Past the bound, what was found with `lastKey` to continue from.
   * `rarelyDropped`: the filter drops few items (e.g. only expired ones), so the first page asks for just what is
   * wanted (limit + 1) rather than 1,000 items for a page of 50.
   */
  async collect(
    input: QueryCommandInput,
    limit: number,
    keep?: (item: Item) => boolean,
    options: { rarelyDropped?: boolean } = {},
  ): Promise<{ items: Item[]; more: boolean; lastKey?: Item }> {
    const items: Item[] = [];
    let startKey = input.ExclusiveStartKey;
    for (let round = 0; round < MAX_QUERY_ROUNDS; round++) {
      const result = await this.send(
        new QueryCommand({
          ...input,
          ExclusiveStartKey: startKey,
          Limit:
            (input.FilterExpression || keep) && !(options.rarelyDropped && round === 0)
              ? 1000
              : limit + 1 - items.length,
        }),
      );
      const page = (result.Items ?? []) as Item[];
      items.push(...(keep ? page.filter(keep) : page));
      startKey = result.LastEvaluatedKey;
      if (items.length > limit) return { items: items.slice(0, limit), more: true };
      if (!startKey) return { items, more: false };
    }
    // Filtered listings can need many pages; hand back what we have with a key to continue from.
    return { items, more: true, lastKey: startKey };
  }

  /** Every item of a Query, page after page (bounded: `maxPages`). */
  async queryAll(input: QueryCommandInput, each: (item: Item) => void, maxPages = 10_000): Promise<void> {
    let startKey: Record<string, unknown> | undefined;
    for (let page = 0; page < maxPages; page++) {
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

  /** BatchGetItem (consistent) of any number of keys; the items found, in no particular order. */
  /** `attributes`: only these (ProjectionExpression), e.g. a summary without the inline body. */
  async batchGet(keys: Item[], attributes?: readonly string[]): Promise<Item[]> {
    const projection = attributes && {
      ProjectionExpression: attributes.map((_, i) => `#a${i}`).join(", "),
      ExpressionAttributeNames: Object.fromEntries(attributes.map((a, i) => [`#a${i}`, a])),
    };
    const found: Item[] = [];
    for (let start = 0; start < keys.length; start += BATCH_GET_KEYS) {
      const left = await retryLeftovers(
        keys.slice(start, start + BATCH_GET_KEYS),
        async (pending) => {
          const result = await this.send(
            new BatchGetCommand({
              RequestItems: { [this.name]: { Keys: pending, ConsistentRead: true, ...projection } },
            }),
          );
          found.push(...((result.Responses?.[this.name] as Item[] | undefined) ?? []));
          return (result.UnprocessedKeys?.[this.name]?.Keys as Item[] | undefined) ?? [];
        },
        BATCH_RETRY,
      );
      if (left.length > 0) throw this.#throttled("keys");
    }
    return found;
  }

  /**
   * BatchWriteItem of any number of Put/Delete requests, `perCall` per call (DynamoDB allows 25; big items want
   * fewer, under its 16 MB per call); the items written are added to `stats.items`.
   */
  async batchWrite(requests: object[], perCall = BATCH_WRITE_ITEMS): Promise<void> {
    for (let start = 0; start < requests.length; start += perCall) {
      const left = await retryLeftovers(
        requests.slice(start, start + perCall),
        async (pending) => {
          const result = await this.send(new BatchWriteCommand({ RequestItems: { [this.name]: pending as never } }));
          const unprocessed = (result.UnprocessedItems?.[this.name] as object[] | undefined) ?? [];
          this.stats.items += pending.length - unprocessed.length;
          return unprocessed;
        },
        BATCH_RETRY,
      );
      if (left.length > 0) throw this.#throttled("items");
    }
  }

  async batchDelete(keys: Item[]): Promise<void> {
    await this.batchWrite(keys.map((key) => ({ DeleteRequest: { Key: { PK: key.PK, SK: key.SK } } })));
  }

  // biome-ignore lint/suspicious/noExplicitAny: each command has its own output type
  async send(command: object): Promise<any> {
    const isWrite =
      this.#countWriteUnits &&
      (command instanceof PutCommand ||
        command instanceof UpdateCommand ||
        command instanceof TransactWriteCommand ||
        command instanceof BatchWriteCommand);
    const input = (command as { input?: Record<string, unknown> }).input;
    if (isWrite && input) input.ReturnConsumedCapacity = "TOTAL";
    try {
      // The invocation's budget: a call still unanswered at the request's deadline ends there (a 504).
      const result = await this.#db.send(command as never, { abortSignal: requestBudget() });
      if (isWrite) {
        const consumed = (result as { ConsumedCapacity?: unknown }).ConsumedCapacity ?? [];
        for (const used of [consumed].flat() as { CapacityUnits?: number }[]) {
          this.stats.writeUnits += used?.CapacityUnits ?? 0;
        }
      }
      return result;
    } catch (error) {
      // A failed condition is the caller's answer, not an outage.
      if (CONDITION_FAILED.has((error as { name?: string }).name ?? "")) throw error;
      throw translateAwsError(error, this.#location);
    }
  }

  #throttled(what: string): StoreUnavailableError {
    return new StoreUnavailableError(
      `DynamoDB table "${this.name}" left ${what} unprocessed after ${BATCH_RETRY.maxAttempts} attempts (throttled)`,
      "StoreThrottled",
    );
  }
}
