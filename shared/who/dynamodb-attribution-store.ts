/**
 * The DynamoDB AttributionStore, in the releases table (like the sync state: no new table, no new index):
 *
 *   PK = WHO#<cluster>#<namespace>#<release>  SK = <attributionKey>   one attribution (JSON), its state
 *        (pending ones also carry GSI1PK = WHOQ#<cluster>, GSI1SK = dueSortKey: the cluster's queue)
 *   PK = WHO#<cluster>                        SK = LOGGING            whether the cluster's audit logs could be read
 *
 * `forRelease` is one Query of the release's partition (of one kind's keys, `KEY_PREFIX`, when asked). `due` is one Query of the queue in GSI1 (sparse: a settled
 * attribution drops its GSI1 keys and leaves the queue; the release listings only ever query GSI1PK = DEPLOYED)
 * for the keys, then one consistent BatchGet of those items, so an attribution settled a moment ago is never handed
 * out again by a lagging index. `enqueue` puts each new subject with attribute_not_exists(PK): a subject is kept
 * once, whoever enqueues it and however often (an audit shows the same drift run after run), and is looked up once;
 * a revision Helm wrote again under the same number (`supersedes`) replaces what was kept for the old object.
 * A settled attribution carries the table's TTL attribute (`expiresAt`, `attributionExpiresAt`): DynamoDB deletes it
 * ATTRIBUTION_RETENTION_DAYS after it was enqueued, and `forRelease` skips one past it that TTL has not deleted yet.
 */
import { PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { pool } from "../concurrency.ts";
import { type Clock, systemClock } from "../ports.ts";
import type { ReleaseKey } from "../release/model.ts";
import type { Item, Table } from "../store/dynamodb-table.ts";
import { DEPLOYED_INDEX, TTL_ATTRIBUTE } from "../store/table-schema.ts";
import {
  type Attribution,
  type AttributionStore,
  type AttributionSubject,
  attributionExpiresAt,
  type ClusterAuditLogging,
  KEY_PREFIX,
  pendingAttribution,
  supersedes,
} from "./attribution.ts";
import { dueAt, dueSortKey, dueUpperBound } from "./due-order.ts";

const releasePartition = (cluster: string, namespace: string, release: string) =>
  `WHO#${cluster}#${namespace}#${release}`;
const clusterPartition = (cluster: string) => `WHO#${cluster}`;
const queuePartition = (cluster: string) => `WHOQ#${cluster}`;
const LOGGING = "LOGGING";
const QUEUE = DEPLOYED_INDEX;
/** Conditional puts in flight at once while enqueuing (a first sync enqueues thousands of revisions). */
const ENQUEUE_CONCURRENCY = 16;

export class DynamoDbAttributionStore implements AttributionStore {
  readonly #table: Table;
  readonly #clock: Clock;

  /** `onReleasesTable` (store/config.ts) hands it the releases table. */
  constructor(table: Table, clock: Clock = systemClock) {
    this.#table = table;
    this.#clock = clock;
  }

  async enqueue(subjects: readonly AttributionSubject[], now: Date): Promise<number> {
    const fresh = new Map<string, Attribution>();
    for (const subject of subjects) {
      const attribution = pendingAttribution(subject, now);
      fresh.set(`${itemKey(attribution).PK}\n${attribution.key}`, attribution);
    }
    // Reading first is cheaper than a refused conditional put for what an earlier run already kept.
    const kept = new Map(
      (await this.#table.batchGet([...fresh.values()].map(itemKey), ["PK", "SK", "attribution"])).map((item) => [
        `${item.PK}\n${item.SK}`,
        item,
      ]),
    );
    let added = 0;
    await pool(
      [...fresh.entries()]
        .map(([id, attribution]) => ({ attribution, held: kept.get(id) }))
        .filter(({ attribution, held }) => {
          const heldAttribution = held && fromItem(held);
          return !held || (heldAttribution !== undefined && supersedes(attribution.subject, heldAttribution));
        })
        .map(({ attribution, held }) => async () => {
          // A new subject only if none is kept; a superseding one only over what was read (no lost update).
          const put = new PutCommand({
            TableName: this.#table.name,
            Item: toItem(attribution),
            ...(held
              ? { ConditionExpression: "attribution = :held", ExpressionAttributeValues: { ":held": held.attribution } }
              : { ConditionExpression: "attribute_not_exists(PK)" }),
          });
          if (await this.#table.conditional(put)) added++;
        }),
      ENQUEUE_CONCURRENCY,
    );
    return added;
  }

  async due(cluster: string, now: Date, limit: number): Promise<Attribution[]> {
    if (limit <= 0) return [];
    const result = await this.#table.send(
      new QueryCommand({
        TableName: this.#table.name,
        IndexName: QUEUE.name,
        KeyConditionExpression: `${QUEUE.partitionKey} = :queue AND ${QUEUE.sortKey} < :upper`,
        ExpressionAttributeValues: { ":queue": queuePartition(cluster), ":upper": dueUpperBound(now) },
        ProjectionExpression: "PK, SK",
        Limit: limit,
      }),
    );
    const keys = ((result.Items ?? []) as Item[]).map((item) => ({ PK: item.PK, SK: item.SK }));
    if (keys.length === 0) return [];
    const at = now.getTime();
    return (await this.#table.batchGet(keys))
      .map(fromItem)
      .filter((a): a is Attribution => a !== undefined && a.state === "pending")
      .filter((a) => Date.parse(dueAt(a)) <= at)
      .sort((a, b) => dueSortKey(a).localeCompare(dueSortKey(b)));
  }

  async settle(attributions: readonly Attribution[]): Promise<void> {
    // One batch may not name a key twice: the last outcome of a subject wins.
    const latest = new Map(attributions.map((a) => [`${itemKey(a).PK}\n${a.key}`, a]));
    await this.#table.batchWrite([...latest.values()].map((a) => ({ PutRequest: { Item: toItem(a) } })));
  }

  async forRelease(release: ReleaseKey, only?: AttributionSubject["type"]): Promise<Attribution[]> {
    const found: Attribution[] = [];
    await this.#table.queryAll(
      {
        TableName: this.#table.name,
        KeyConditionExpression: only ? "PK = :pk AND begins_with(SK, :kind)" : "PK = :pk",
        // TTL deletes up to days late: what has expired is not shown meanwhile.
        FilterExpression: "attribute_not_exists(#expiresAt) OR #expiresAt > :now",
        ExpressionAttributeNames: { "#expiresAt": TTL_ATTRIBUTE },
        ExpressionAttributeValues: {
          ":pk": releasePartition(release.cluster, release.namespace, release.name),
          ":now": Math.floor(this.#clock.now().getTime() / 1000),
          ...(only ? { ":kind": KEY_PREFIX[only] } : {}),
        },
        ConsistentRead: true,
      },
      (item) => {
        const attribution = fromItem(item);
        if (attribution) found.push(attribution);
      },
    );
    return found;
  }

  async clusterLogging(cluster: string): Promise<ClusterAuditLogging | undefined> {
    const item = await this.#table.get(clusterPartition(cluster), LOGGING);
    if (!item) return undefined;
    const logging: ClusterAuditLogging = { enabled: item.enabled === true, checkedAt: String(item.checkedAt ?? "") };
    if (typeof item.hint === "string") logging.hint = item.hint;
    return logging;
  }

  async setClusterLogging(cluster: string, logging: ClusterAuditLogging): Promise<void> {
    await this.#table.put({ PK: clusterPartition(cluster), SK: LOGGING, ...logging });
  }
}

function itemKey(attribution: Attribution): { PK: string; SK: string } {
  const { subject } = attribution;
  return { PK: releasePartition(attribution.cluster, subject.namespace, subject.release), SK: attribution.key };
}

function toItem(attribution: Attribution): Item {
  const item: Item = { ...itemKey(attribution), state: attribution.state, attribution: JSON.stringify(attribution) };
  const expiresAt = attributionExpiresAt(attribution);
  if (expiresAt !== undefined) item[TTL_ATTRIBUTE] = expiresAt;
  if (attribution.state === "pending") {
    item[QUEUE.partitionKey] = queuePartition(attribution.cluster);
    item[QUEUE.sortKey] = dueSortKey(attribution);
  }
  return item;
}

function fromItem(item: Item): Attribution | undefined {
  return typeof item.attribution === "string" ? (JSON.parse(item.attribution) as Attribution) : undefined;
}
