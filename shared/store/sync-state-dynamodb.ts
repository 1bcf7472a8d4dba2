/**
 * The DynamoDB SyncStateStore, in the releases table under its own partition
 * per cluster (no index keys, so listings never see it):
 *
 *   PK = SYNC#<cluster>   SK = OBJ#<Kind>/<namespace>/<name>   one Helm storage object: uid, rv, release, revision, status
 *                         SK = STATE                           cursor, last run summary, last complete time (JSON)
 *                         SK = LEASE                           owner, expiresAt (a conditional put)
 *
 * Reading every record of a 10,000-object cluster is one paginated Query (~1.5 MB).
 */
import { DeleteCommand, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { Table } from "./dynamodb-table.ts";
import type { SyncedObject, SyncLease, SyncState, SyncStateStore } from "./sync-state.ts";

const partition = (cluster: string) => `SYNC#${cluster}`;
const OBJECT_PREFIX = "OBJ#";

export class DynamoDbSyncStateStore implements SyncStateStore {
  readonly #table: Table;

  /** `onReleasesTable` (config.ts) hands it the releases table. */
  constructor(table: Table) {
    this.#table = table;
  }

  async objects(cluster: string): Promise<SyncedObject[]> {
    const records: SyncedObject[] = [];
    await this.#table.queryAll(
      {
        TableName: this.#table.name,
        KeyConditionExpression: "PK = :pk AND begins_with(SK, :obj)",
        ExpressionAttributeValues: { ":pk": partition(cluster), ":obj": OBJECT_PREFIX },
        ConsistentRead: true,
      },
      (item) => {
        const record: SyncedObject = {
          object: String(item.SK).slice(OBJECT_PREFIX.length),
          uid: String(item.uid ?? ""),
          resourceVersion: String(item.rv ?? ""),
          namespace: String(item.namespace ?? ""),
          release: String(item.release ?? ""),
          revision: Number(item.revision),
          status: String(item.status ?? ""),
        };
        if (typeof item.error === "string") record.error = item.error;
        if (item.checked === true) record.checked = true;
        records.push(record);
      },
    );
    return records;
  }

  async writeObjects(cluster: string, put: readonly SyncedObject[], remove: readonly string[]): Promise<void> {
    const pk = partition(cluster);
    // One batch may not name a key twice (DynamoDB refuses it whole): the last record of an object wins.
    const latest = new Map(put.map((record) => [record.object, record]));
    const putKeys = new Set(latest.keys());
    const requests: object[] = [
      // A record replaced in the same write is a put only; a removal named twice is one.
      ...[...new Set(remove)]
        .filter((object) => !putKeys.has(object))
        .map((object) => ({ DeleteRequest: { Key: { PK: pk, SK: `${OBJECT_PREFIX}${object}` } } })),
      ...[...latest.values()].map((record) => ({
        PutRequest: {
          Item: {
            PK: pk,
            SK: `${OBJECT_PREFIX}${record.object}`,
            uid: record.uid,
            rv: record.resourceVersion,
            namespace: record.namespace,
            release: record.release,
            revision: record.revision,
            status: record.status,
            ...(record.error === undefined ? {} : { error: record.error }),
            ...(record.checked ? { checked: true } : {}),
          },
        },
      })),
    ];
    if (requests.length > 0) await this.#table.batchWrite(requests);
  }

  async state<Summary>(cluster: string): Promise<SyncState<Summary>> {
    const result = await this.#table.send(
      new GetCommand({
        TableName: this.#table.name,
        Key: { PK: partition(cluster), SK: "STATE" },
        ConsistentRead: true,
      }),
    );
    const text = result.Item?.state;
    return typeof text === "string" ? (JSON.parse(text) as SyncState<Summary>) : {};
  }

  async saveState<Summary>(cluster: string, state: SyncState<Summary>): Promise<void> {
    await this.#table.put({ PK: partition(cluster), SK: "STATE", state: JSON.stringify(state) });
  }

  async acquireLease(cluster: string, owner: string, expiresAt: number, now: number) {
    try {
      await this.#table.send(
        new PutCommand({
          TableName: this.#table.name,
          Item: { PK: partition(cluster), SK: "LEASE", owner, expiresAt },
          ConditionExpression: "attribute_not_exists(PK) OR expiresAt <= :now OR #owner = :owner",
          ExpressionAttributeNames: { "#owner": "owner" },
          ExpressionAttributeValues: { ":now": now, ":owner": owner },
        }),
      );
      return { acquired: true };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const held = await this.#table.send(
        new GetCommand({
          TableName: this.#table.name,
          Key: { PK: partition(cluster), SK: "LEASE" },
          ConsistentRead: true,
        }),
      );
      const holder: SyncLease | undefined = held.Item
        ? { owner: String(held.Item.owner), expiresAt: Number(held.Item.expiresAt) }
        : undefined;
      return { acquired: false, holder };
    }
  }

  async releaseLease(cluster: string, owner: string): Promise<void> {
    try {
      await this.#table.send(
        new DeleteCommand({
          TableName: this.#table.name,
          Key: { PK: partition(cluster), SK: "LEASE" },
          ConditionExpression: "#owner = :owner",
          ExpressionAttributeNames: { "#owner": "owner" },
          ExpressionAttributeValues: { ":owner": owner },
        }),
      );
    } catch (error) {
      // Another run took over an expired lease: nothing of ours to release.
      if (!isConditionFailure(error)) throw error;
    }
  }
}

function isConditionFailure(error: unknown): boolean {
  const e = error as { name?: string; cause?: { name?: string } };
  return e.name === "ConditionalCheckFailedException" || e.cause?.name === "ConditionalCheckFailedException";
}
