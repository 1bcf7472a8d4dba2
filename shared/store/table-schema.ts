/**
 * The releases table, in one place: `init` creates it from here and
 * infra/releases-table.yml mirrors it (a test keeps the two in step).
 *
 *   PK = REL#<cluster>#<namespace>#<name>
 *     SK = REV#0000000007              revision metadata (small: no manifest)
 *     SK = BLOB#0000000007#<id>#0000   gzip manifest + hook manifests, <= 350 KB per chunk
 *                                      (not under REV#, so a descending REV# query never meets a chunk)
 *     SK = LATEST                      copy of the highest revision's metadata + index keys, and of its
 *                                      compressed body when that is <= 64 KB (one GetItem per status)
 *   GSI1 (sparse): GSI1PK = DEPLOYED, GSI1SK = <cluster>#<namespace>#<name>, only while latest is deployed
 *                  GSI1PK = WHOQ#<cluster>: pending attributions, a per-cluster queue (shared/who/dynamodb-attribution-store.ts)
 *   PK = WHO#<cluster>#<namespace>#<name>, SK = <attribution key>: who made a revision or a drift write (docs/who.md)
 *   GSI2: GSI2PK = RELEASES, GSI2SK = <cluster>#<namespace>#<name>, on every LATEST item (helm list)
 *   TTL: expiresAt (epoch seconds), for status-history snapshots (SNAP# items)
 */
import type { CreateTableCommandInput, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { StoreLocation } from "./dynamodb-errors.ts";
import { type EnsureTableResult, ensureTable, type TableDefinition, tableInput } from "./table-definition.ts";

export const PARTITION_KEY = "PK";
export const SORT_KEY = "SK";
export const TTL_ATTRIBUTE = "expiresAt";

export const DEPLOYED_INDEX = { name: "GSI1", partitionKey: "GSI1PK", sortKey: "GSI1SK", value: "DEPLOYED" } as const;
export const RELEASES_INDEX = { name: "GSI2", partitionKey: "GSI2PK", sortKey: "GSI2SK", value: "RELEASES" } as const;

/** What listings read from an index: a release summary, never the metadata JSON. */
export const SUMMARY_ATTRIBUTES = [
  "cluster",
  "namespace",
  "name",
  "revision",
  "status",
  "updated",
  "description",
  "chart",
];

export const DEFAULT_TABLE_NAME = "helm-releases";

export const RELEASES_TABLE: TableDefinition = {
  holds: "releases",
  template: "infra/releases-table.yml",
  indexes: [DEPLOYED_INDEX, RELEASES_INDEX].map((index) => ({ ...index, attributes: SUMMARY_ATTRIBUTES })),
  ttlAttribute: TTL_ATTRIBUTE,
};

export function createTableInput(tableName: string): CreateTableCommandInput {
  return tableInput(tableName, RELEASES_TABLE);
}

/** `init`: create the releases table and enable TTL, idempotently. */
export function ensureReleasesTable(client: DynamoDBClient, location: StoreLocation): Promise<EnsureTableResult> {
  return ensureTable(client, location, RELEASES_TABLE);
}
