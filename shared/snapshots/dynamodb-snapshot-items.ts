/**
 * The snapshots table's items as the model (table-schema.ts): a summary item as a Snapshot, a FLEET index entry
 * as a FleetEntry, the freshness attributes both carry, the FLEET index Query of one health, and the key of a
 * release's partition.
 */
import type { QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import type { ReleaseKey } from "../release/model.ts";
import type { Item } from "../store/dynamodb-table.ts";
import { SnapshotCorruptError } from "./errors.ts";
import type { FleetEntry, Snapshot, StoredFreshness } from "./model.ts";
import { checkSnapshot } from "./snapshot-codec.ts";
import { FLEET_IN_MAX, type FleetScopeFilter } from "./snapshot-store.ts";
import { FLEET_INDEX } from "./table-schema.ts";

/** A release's partition: its snapshots (S#, B#, FIRST) and its SLO burn state (dynamodb-small-stores.ts). */
export const snapshotPartitionKey = (r: ReleaseKey) => `SNAP#${r.cluster}#${r.namespace}#${r.name}`;

export function summaryFrom(item: Item): Snapshot {
  const id = typeof item.snapshotId === "string" ? item.snapshotId : String(item.PK);
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(String(item.doc));
  } catch (error) {
    throw new SnapshotCorruptError(id, "its document is not JSON", { cause: error });
  }
  const snapshot = {
    ...doc,
    lastRunId: item.lastRunId,
    lastSeenAt: item.lastSeenAt,
    seenCount: item.seenCount,
    expiresAt: item.expiresAt,
    ...(typeof item.previousSeenAt === "string" ? { previousSeenAt: item.previousSeenAt } : {}),
    ...freshnessFrom(item),
  };
  return checkSnapshot(id, snapshot);
}

/** The freshness attributes of a summary item (or its FLEET index copy). */
export function freshnessFrom(item: Item): { freshness?: StoredFreshness } {
  if (typeof item.freshnessState !== "string") return {};
  const state = item.freshnessState as StoredFreshness["state"];
  return {
    freshness: typeof item.clusterRevision === "number" ? { state, clusterRevision: item.clusterRevision } : { state },
  };
}

/** An extend's SET / REMOVE of the freshness attributes: this sighting's, or none. */
export function freshnessUpdate(freshness: StoredFreshness | undefined) {
  const values: Record<string, unknown> = {};
  const removed: string[] = [];
  let set = "";
  if (freshness) {
    set += ", freshnessState = :fs";
    values[":fs"] = freshness.state;
  } else removed.push("freshnessState");
  if (freshness?.clusterRevision !== undefined) {
    set += ", clusterRevision = :cr";
    values[":cr"] = freshness.clusterRevision;
  } else removed.push("clusterRevision");
  return { set, remove: removed.length ? ` REMOVE ${removed.join(", ")}` : "", values };
}

export function briefResource(resource: Snapshot["resources"][number]): Snapshot["resources"][number] {
  const brief = {
    apiVersion: resource.apiVersion,
    kind: resource.kind,
    name: resource.name,
    health: resource.health,
    message: "",
    cells: {},
  };
  return resource.namespace ? { ...brief, namespace: resource.namespace } : brief;
}

/** The FLEET index Query of one partition of a health (dynamodb-fleet-partitions.ts), narrowed by the filter. */
export function fleetQuery(
  table: string,
  partition: string,
  filter: FleetScopeFilter,
  now: Date,
  after?: string,
): QueryCommandInput {
  const values: Record<string, unknown> = { ":pk": partition, ":now": Math.floor(now.getTime() / 1000) };
  const names: Record<string, string> = {};
  const filters = ["expiresAt > :now"];
  let key = "FLEETPK = :pk";
  // FLEETSK is <cluster>#<namespace>#<name>: a cluster (and its namespace) is a key prefix.
  const prefix = filter.cluster ? `${filter.cluster}#${filter.namespace ? `${filter.namespace}#` : ""}` : undefined;
  if (prefix !== undefined && after !== undefined) {
    key += " AND FLEETSK BETWEEN :after AND :last";
    values[":after"] = after;
    values[":last"] = `${prefix}\uffff`;
  } else if (prefix !== undefined) {
    key += " AND begins_with(FLEETSK, :prefix)";
    values[":prefix"] = prefix;
  } else if (after !== undefined) {
    key += " AND FLEETSK > :after";
    values[":after"] = after;
  }
  if (filter.namespace && !filter.cluster) {
    filters.push("#ns = :ns");
    names["#ns"] = "namespace";
    values[":ns"] = filter.namespace;
  }
  // Past IN's 100 operands the caller keeps the wanted clusters as it reads (dynamodb-fleet-partitions.ts).
  if (filter.clusters && filter.clusters.length <= FLEET_IN_MAX) {
    // No cluster wanted: a condition nothing meets (DynamoDB has no empty IN list).
    const wanted = filter.clusters.length ? filter.clusters : ["#"];
    filters.push(`#cluster IN (${wanted.map((_, i) => `:c${i}`).join(", ")})`);
    names["#cluster"] = "cluster";
    wanted.forEach((c, i) => {
      values[`:c${i}`] = c;
    });
  }
  return {
    TableName: table,
    IndexName: FLEET_INDEX.name,
    KeyConditionExpression: key,
    FilterExpression: filters.join(" AND "),
    ExpressionAttributeValues: values,
    ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
  };
}

export function fleetEntryFrom(item: Item): FleetEntry {
  return {
    release: { cluster: String(item.cluster), namespace: String(item.namespace), name: String(item.name) },
    health: { overall: item.overall as FleetEntry["health"]["overall"], message: String(item.healthMessage ?? "") },
    revision: Number(item.revision),
    snapshotId: String(item.snapshotId),
    since: String(item.firstSeenAt),
    lastSeenAt: String(item.lastSeenAt),
    ...(typeof item.driftCount === "number" ? { driftCount: item.driftCount } : {}),
    ...freshnessFrom(item),
  };
}
