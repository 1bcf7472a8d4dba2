/**
 * Listings from the two indexes on LATEST items (helm list, audits). Cursors are
 * the listing position of the last item returned (`<cluster>#<ns>#<name>`), so a
 * filtered query may read ahead without skipping anything.
 */
import type { QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import type { ReleaseKey, ReleaseSummary } from "../release/model.ts";
import type { RevisionSource } from "../release/storage-identity.ts";
import { validateClusterName, validateNamespace } from "../release/validation.ts";
import {
  LATEST_SORT_KEY,
  listingPosition,
  metadataFromItem,
  mutableFromItem,
  releasePartitionKey,
  summaryFromItem,
} from "./dynamodb-items.ts";
import type { Table } from "./dynamodb-table.ts";
import { cursorPosition, decodeCursor, encodeCursor, listingScope, resolveLimit, wantedStatuses } from "./paging.ts";
import type { ListFilter, Page, PageRequest, RevisionFilter } from "./release-store.ts";
import { summaryOf } from "./revision-content.ts";
import { DEPLOYED_INDEX, RELEASES_INDEX, SUMMARY_ATTRIBUTES } from "./table-schema.ts";

type Index = typeof DEPLOYED_INDEX | typeof RELEASES_INDEX;

export interface IndexQuery {
  index: Index;
  query: Partial<QueryCommandInput>;
  /** The listing positions this query can return (a cursor must point inside it). */
  scope: string;
}

export function releasesQuery(filter: ListFilter): IndexQuery {
  const cluster = filter.cluster === undefined ? undefined : validateClusterName(filter.cluster);
  const namespace = filter.namespace === undefined ? undefined : validateNamespace(filter.namespace);
  const statuses = wantedStatuses(filter);
  // Deployed releases have their own sparse index: an exact Query instead of a filtered one.
  const onlyDeployed = statuses?.length === 1 && statuses[0] === "deployed";
  const index = onlyDeployed ? DEPLOYED_INDEX : RELEASES_INDEX;
  const prefix = cluster === undefined ? undefined : listingScope({ cluster, namespace });
  const filters: string[] = [];
  const values: Record<string, unknown> = { ":gpk": index.value };
  const names: Record<string, string> = { "#gpk": index.partitionKey };
  if (prefix !== undefined) {
    values[":prefix"] = prefix;
    names["#gsk"] = index.sortKey;
  }
  if (cluster === undefined && namespace !== undefined) {
    filters.push("#namespace = :namespace");
    names["#namespace"] = "namespace";
    values[":namespace"] = namespace;
  }
  if (statuses !== undefined && !onlyDeployed) {
    // No status wanted: a condition nothing meets (DynamoDB has no empty IN list).
    const wanted = statuses.length ? statuses : ["-"];
    filters.push(`#status IN (${wanted.map((_, i) => `:status${i}`).join(", ")})`);
    names["#status"] = "status";
    wanted.forEach((s, i) => {
      values[`:status${i}`] = s;
    });
  }
  return {
    index,
    scope: prefix ?? "",
    query: {
      KeyConditionExpression: prefix === undefined ? "#gpk = :gpk" : "#gpk = :gpk AND begins_with(#gsk, :prefix)",
      FilterExpression: filters.length ? filters.join(" AND ") : undefined,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

export function deployedQuery(): IndexQuery {
  return {
    index: DEPLOYED_INDEX,
    scope: "",
    query: {
      KeyConditionExpression: "#gpk = :gpk",
      ExpressionAttributeNames: { "#gpk": DEPLOYED_INDEX.partitionKey },
      ExpressionAttributeValues: { ":gpk": DEPLOYED_INDEX.value },
    },
  };
}

export async function listFromIndex(
  table: Table,
  kind: string,
  page: PageRequest,
  { index, query, scope }: IndexQuery,
): Promise<Page<ReleaseSummary>> {
  const limit = resolveLimit(page.limit);
  const after = page.cursor === undefined ? undefined : cursorPosition(decodeCursor(kind, page.cursor).after, scope);
  const startKey = (position: string) => ({
    PK: `REL#${position}`,
    SK: LATEST_SORT_KEY,
    [index.partitionKey]: index.value,
    [index.sortKey]: position,
  });
  const { items, more, lastKey } = await table.collect(
    {
      TableName: table.name,
      IndexName: index.name,
      ProjectionExpression: SUMMARY_ATTRIBUTES.map((a) => `#p_${a}`).join(", "),
      ...query,
      ExpressionAttributeNames: {
        ...query.ExpressionAttributeNames,
        ...Object.fromEntries(SUMMARY_ATTRIBUTES.map((a) => [`#p_${a}`, a])),
      },
      ExclusiveStartKey: after === undefined ? undefined : startKey(after),
    },
    limit,
  );
  const summaries = items.map(summaryFromItem);
  if (!more) return { items: summaries };
  const position = summaries.length ? listingPosition(summaries.at(-1)!) : String(lastKey?.[index.sortKey]);
  return { items: summaries, cursor: encodeCursor(kind, { after: position }) };
}

/** Bounds the walk over releases: 1000 pages of 1000 releases is past any cluster. */
const MAX_RELEASE_PAGES = 1000;

/**
 * Revisions of any age with a wanted status (`helm list --superseded`): the releases in
 * scope from the listing index, then each release's revisions with a status filter, oldest
 * first. The cursor is the listing position of the last release whose revisions are all in.
 */
export async function listRevisionsFromTable(
  table: Table,
  filter: RevisionFilter,
  page: PageRequest,
  scope: string,
): Promise<Page<ReleaseSummary>> {
  const statuses = wantedStatuses({ statuses: filter.statuses }) ?? [];
  const limit = resolveLimit(page.limit);
  const after =
    page.cursor === undefined ? undefined : cursorPosition(decodeCursor("revisions", page.cursor).after, scope);
  const items: ReleaseSummary[] = [];
  if (statuses.length === 0) return { items };
  const releases = releasesQuery({ cluster: filter.cluster, namespace: filter.namespace });
  let cursor = after === undefined ? undefined : encodeCursor("list", { after });
  for (let round = 0; round < MAX_RELEASE_PAGES; round++) {
    const batch = await listFromIndex(table, "list", { limit: 100, cursor }, releases);
    for (const [i, release] of batch.items.entries()) {
      await table.queryAll(
        {
          TableName: table.name,
          KeyConditionExpression: "PK = :pk AND begins_with(SK, :rev)",
          FilterExpression: `#status IN (${statuses.map((_, j) => `:s${j}`).join(", ")})`,
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: {
            ":pk": releasePartitionKey(release),
            ":rev": "REV#",
            ...Object.fromEntries(statuses.map((s, j) => [`:s${j}`, s])),
          },
          ProjectionExpression: "PK, SK, revision, meta, #status, description, deleted, hookRuns",
          ConsistentRead: true,
        },
        (item) => items.push(summaryOf(release.cluster, metadataFromItem(item))),
      );
      const last = i === batch.items.length - 1 && !batch.cursor;
      if (items.length >= limit && !last) {
        return { items, cursor: encodeCursor("revisions", { after: listingPosition(release) }) };
      }
    }
    if (!batch.cursor) return { items };
    cursor = batch.cursor;
  }
  return { items };
}

/** Every REV# item of a release, newest first, with its provenance only (the sync's repair reads it). */
export async function readRevisionSources(
  table: Table,
  key: ReleaseKey,
): Promise<{ revision: number; source?: RevisionSource }[]> {
  const revisions: { revision: number; source?: RevisionSource }[] = [];
  await table.queryAll(
    {
      TableName: table.name,
      KeyConditionExpression: "PK = :pk AND begins_with(SK, :rev)",
      ExpressionAttributeValues: { ":pk": releasePartitionKey(key), ":rev": "REV#" },
      ProjectionExpression: "revision, #status, #source",
      ExpressionAttributeNames: { "#status": "status", "#source": "source" },
      ScanIndexForward: false,
      ConsistentRead: true,
    },
    (item) => {
      const { source } = mutableFromItem(item);
      revisions.push({ revision: Number(item.revision), ...(source ? { source } : {}) });
    },
  );
  return revisions;
}
