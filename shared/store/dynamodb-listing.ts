/**
 * Listings from the two indexes on LATEST items (helm list, audits). Cursors are
 * the listing position of the last item returned (`<cluster>#<ns>#<name>`), so a
 * filtered query may read ahead without skipping anything.
 */
import type { QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import type { ReleaseSummary } from "../release/model.ts";
import { validateClusterName, validateNamespace, validateStatus } from "../release/validation.ts";
import { LATEST_SORT_KEY, listingPosition, summaryFromItem } from "./dynamodb-items.ts";
import type { TableClient } from "./dynamodb-table.ts";
import { cursorPosition, decodeCursor, encodeCursor, listingScope, resolveLimit } from "./paging.ts";
import type { ListFilter, Page, PageRequest } from "./release-store.ts";
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
  const status = filter.status === undefined ? undefined : validateStatus(filter.status);
  // Deployed releases have their own sparse index: an exact Query instead of a filtered one.
  const index = status === "deployed" ? DEPLOYED_INDEX : RELEASES_INDEX;
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
  if (status !== undefined && status !== "deployed") {
    filters.push("#status = :status");
    names["#status"] = "status";
    values[":status"] = status;
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
  table: TableClient,
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
      TableName: table.tableName,
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
