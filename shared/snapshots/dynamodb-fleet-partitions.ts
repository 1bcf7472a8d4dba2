/**
 * The FLEET index's partitions, write-sharded (docs/scale.md "Fixes", hot keys). Every audit of every release
 * writes the index (an extend sets lastSeenAt and expiresAt, both projected), and nearly every release is in one
 * health: with FLEETPK = HEALTH#<overall> alone, 50,000 releases audited within a few minutes are ~170-800 writes a
 * second on one partition key (DynamoDB's limit: 1,000 per partition, and a throttled index throttles the table's
 * writes). So FLEETPK = HEALTH#<overall>#<shard>, the shard a hash of the release's position (a cluster's releases
 * spread too), FLEET_SHARDS of them: each takes an eighth.
 *
 * A health is read from all its partitions at once and merged in FLEETSK order, each read in chunks of about its
 * share of the page, so a page reads about what it returns (plus a chunk per partition), never a page per
 * partition. Items written before the shards keep the unsharded key until their release's next audit moves them
 * (an extend sets the sharded key): that key is read as one more partition.
 */
import type { HealthStatus } from "../health/index.ts";
import type { ReleaseKey } from "../release/model.ts";
import type { Item, Table } from "../store/dynamodb-table.ts";
import { fleetQuery } from "./dynamodb-snapshot-items.ts";
import { FLEET_IN_MAX, type FleetScopeFilter } from "./snapshot-store.ts";
import { clusterSet } from "./store-rules.ts";

export const FLEET_SHARDS = 8;
/** Bounds the merge's chunk reads (each at least one item) of one health for one page. */
const MAX_CHUNK_READS = 2_000;

/** The FLEET partition a release's latest snapshot is written to. */
export function fleetPartition(health: HealthStatus, release: ReleaseKey): string {
  return `HEALTH#${health}#${shardOf(`${release.cluster}#${release.namespace}#${release.name}`)}`;
}

/** Every partition one health's entries may be in: the unsharded key of items written before the shards, then each shard. */
export function fleetPartitions(health: HealthStatus): string[] {
  return [`HEALTH#${health}`, ...Array.from({ length: FLEET_SHARDS }, (_, i) => `HEALTH#${health}#${i}`)];
}

/** FNV-1a of the position: stable across processes and releases of the product (a shard must not move). */
function shardOf(position: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(position, "utf8")) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % FLEET_SHARDS;
}

interface PartitionReader {
  partition: string;
  buffer: Item[];
  /** The last FLEETSK read (the next chunk starts after it). */
  after?: string;
  done: boolean;
}

/**
 * The first `want` entries of one health past `after` (a FLEETSK), in FLEETSK order, and whether more follow:
 * a merge of its partitions' sorted reads.
 */
export async function readHealthEntries(
  table: Table,
  health: HealthStatus,
  filter: FleetScopeFilter,
  now: Date,
  after: string | undefined,
  want: number,
): Promise<{ items: Item[]; more: boolean }> {
  const readers: PartitionReader[] = fleetPartitions(health).map((partition) => ({
    partition,
    buffer: [],
    after,
    done: false,
  }));
  const chunk = Math.ceil(want / FLEET_SHARDS) + 1;
  // More clusters than DynamoDB's IN takes: kept as read (a registry's clusters are most of those stored).
  const wanted = filter.clusters && filter.clusters.length > FLEET_IN_MAX ? clusterSet(filter.clusters) : undefined;
  let reads = 0;
  const fill = async (reader: PartitionReader) => {
    reads++;
    const from = reader.after;
    const found = await table.collect(
      fleetQuery(table.name, reader.partition, filter, now, from),
      chunk,
      // A cluster's range is BETWEEN (inclusive) its start and end: the start itself was read before.
      (item) => (from === undefined || String(item.FLEETSK) > from) && (!wanted || wanted.has(String(item.cluster))),
      // Only expired entries (TTL lags) and other clusters are filtered out: a chunk reads about itself.
      { rarelyDropped: true },
    );
    reader.buffer.push(...found.items);
    const last = found.items.at(-1)?.FLEETSK ?? found.lastKey?.FLEETSK;
    if (last !== undefined) reader.after = String(last);
    reader.done = !found.more || last === undefined;
  };
  const out: Item[] = [];
  // One past `want` says whether there is more.
  while (out.length <= want && reads < MAX_CHUNK_READS) {
    const empty = readers.filter((r) => r.buffer.length === 0 && !r.done);
    if (empty.length > 0) await Promise.all(empty.map(fill));
    let next: PartitionReader | undefined;
    for (const reader of readers) {
      if (reader.buffer.length === 0) continue;
      if (!next || String(reader.buffer[0].FLEETSK) < String(next.buffer[0].FLEETSK)) next = reader;
    }
    if (!next) break;
    out.push(next.buffer.shift()!);
  }
  const exhausted = readers.every((r) => r.done && r.buffer.length === 0);
  return { items: out.slice(0, want), more: out.length > want || (!exhausted && reads >= MAX_CHUNK_READS) };
}
