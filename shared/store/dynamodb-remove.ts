/**
 * Removing one revision from the DynamoDB store, as Helm's storage driver deletes
 * a release object (`helm uninstall`, `--history-max` pruning). Only the release
 * sync calls it, for a revision whose storage object the cluster no longer holds.
 *
 * One transaction deletes `REV#n` and moves LATEST: when LATEST is revision n it
 * becomes the highest remaining revision (a copy of its item, with its inline
 * body when it qualifies) or is deleted with the last revision; otherwise LATEST
 * is left alone but must not be n (a condition), so a writer that moves LATEST
 * meanwhile makes the transaction fail and it is tried again, boundedly. The
 * chunks go after the commit: an orphan chunk is invisible to every read (they
 * are found through the revision item's blobId) and the next removal or write
 * does not depend on it.
 */
import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import type { ReleaseKey } from "../release/model.ts";
import { LATEST_SORT_KEY, latestItemFrom, releasePartitionKey } from "./dynamodb-items.ts";
import type { Item, Table } from "./dynamodb-table.ts";
import { ReleaseConflictError } from "./errors.ts";
import { blobSortKey, type ManifestRecord, revisionBlobPrefix, revisionSortKey } from "./manifest-chunks.ts";
import type { RemoveResult } from "./release-store.ts";

const MAX_ATTEMPTS = 5;

export async function removeStoredRevision(table: Table, key: ReleaseKey, revision: number): Promise<RemoveResult> {
  const pk = releasePartitionKey(key);
  const tableName = table.name;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const item = await table.get(pk, revisionSortKey(revision), "PK, revision");
    if (!item) return "absent";
    const latest = await table.get(pk, LATEST_SORT_KEY, "revision");
    const deleteRevision = {
      Delete: {
        TableName: tableName,
        Key: { PK: pk, SK: revisionSortKey(revision) },
        ConditionExpression: "attribute_exists(PK)",
      },
    };
    let moveLatest: object;
    if (latest && Number(latest.revision) === revision) {
      const previous = await highestBelow(table, pk, revision);
      moveLatest = previous
        ? {
            Put: {
              TableName: tableName,
              Item: latestItemFrom(previous, await firstChunk(table, pk, previous)),
              ConditionExpression: "revision = :rev",
              ExpressionAttributeValues: { ":rev": revision },
            },
          }
        : {
            Delete: {
              TableName: tableName,
              Key: { PK: pk, SK: LATEST_SORT_KEY },
              ConditionExpression: "revision = :rev",
              ExpressionAttributeValues: { ":rev": revision },
            },
          };
    } else {
      moveLatest = {
        ConditionCheck: {
          TableName: tableName,
          Key: { PK: pk, SK: LATEST_SORT_KEY },
          ConditionExpression: "attribute_exists(PK) AND revision <> :rev",
          ExpressionAttributeValues: { ":rev": revision },
        },
      };
    }
    const reasons = await table.transact([deleteRevision, moveLatest]);
    if (!reasons) {
      await table.batchDelete(
        await table.allKeys({
          TableName: tableName,
          KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
          ExpressionAttributeValues: { ":pk": pk, ":prefix": revisionBlobPrefix(revision) },
        }),
      );
      return "removed";
    }
    // Someone else removed it, or LATEST moved between the reads and the write: look again.
  }
  throw new ReleaseConflictError(key, revision, "the release kept changing while removing a revision; retry");
}

async function highestBelow(table: Table, pk: string, revision: number): Promise<Item | undefined> {
  const result = await table.send(
    new QueryCommand({
      TableName: table.name,
      KeyConditionExpression: "PK = :pk AND SK BETWEEN :low AND :high",
      ExpressionAttributeValues: { ":pk": pk, ":low": "REV#", ":high": revisionSortKey(revision - 1) },
      ScanIndexForward: false,
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  return (result.Items?.[0] as Item | undefined) ?? undefined;
}

/** The first chunk of a revision's body, for the LATEST item's inline copy (only a one-chunk body is inlined). */
async function firstChunk(table: Table, pk: string, item: Item): Promise<Uint8Array | undefined> {
  const record = item.manifest as ManifestRecord | undefined;
  if (record?.chunks !== 1) return undefined;
  const chunk = await table.get(pk, blobSortKey(Number(item.revision), record.blobId, 0));
  return chunk?.data instanceof Uint8Array ? chunk.data : undefined;
}
