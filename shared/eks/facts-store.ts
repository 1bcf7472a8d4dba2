/**
 * Where DescribeCluster's answer (endpoint + CA) outlives the process that asked: every cold start of every
 * function would otherwise ask EKS again for each cluster it touches (1,000 clusters, many environments: EKS
 * throttles DescribeCluster, docs/scale.md "Fixes"). In the releases table, one small item per cluster:
 *
 *   PK = CLUSTER#<name>   SK = FACTS   endpoint, caData (base64 PEM: public, what a kubeconfig holds), fetchedAt,
 *                                      describedIn (`<account>/<region>` the facts were described in)
 *
 * No index keys, so listings never see it; no ARN is kept. Reads and writes are best effort: a store that
 * fails costs a DescribeCluster, never a status.
 */
import { onReleasesTable, type StoreConfig } from "../store/config.ts";
import type { Table } from "../store/dynamodb-table.ts";
import type { ClusterFacts } from "./aws-calls.ts";

/**
 * Endpoint, CA and version as DescribeCluster gave them (never its ARN), when (`fetchedAt`, epoch ms), and for which
 * cluster of that name (`describedIn`: `<account>/<region>`; absent in an item written before it was kept).
 */
export type StoredClusterFacts = Pick<ClusterFacts, "endpoint" | "caData" | "version"> & {
  fetchedAt: number;
  describedIn?: string;
};

export interface ClusterFactsStore {
  read(cluster: string): Promise<StoredClusterFacts | undefined>;
  write(cluster: string, facts: StoredClusterFacts): Promise<void>;
}

/** One item per cluster in the releases table (above); an item that is not such facts reads as none. */
function dynamoDbClusterFacts(table: Table): ClusterFactsStore {
  const key = (cluster: string) => ({ PK: `CLUSTER#${cluster}`, SK: "FACTS" });
  return {
    async read(cluster) {
      const { PK, SK } = key(cluster);
      const item = await table.get(PK, SK, "endpoint, caData, fetchedAt, version, describedIn");
      if (typeof item?.endpoint !== "string" || typeof item.caData !== "string") return undefined;
      if (!item.endpoint.startsWith("https://") || typeof item.fetchedAt !== "number") return undefined;
      const facts: StoredClusterFacts = { endpoint: item.endpoint, caData: item.caData, fetchedAt: item.fetchedAt };
      if (typeof item.version === "string") facts.version = item.version;
      if (typeof item.describedIn === "string") facts.describedIn = item.describedIn;
      return facts;
    },
    async write(cluster, facts) {
      await table.put({ ...key(cluster), ...facts });
    },
  };
}

/** The process's memory (STORE_DRIVER=memory, tests): what a warm process keeps anyway. */
export function memoryClusterFacts(): ClusterFactsStore & { items: Map<string, StoredClusterFacts> } {
  const items = new Map<string, StoredClusterFacts>();
  return {
    items,
    async read(cluster) {
      const held = items.get(cluster);
      return held && { ...held };
    },
    async write(cluster, facts) {
      items.set(cluster, { ...facts });
    },
  };
}

/** The facts store of a store configuration: the releases table (its driver's), or memory. */
export function openClusterFactsStore(config: StoreConfig): ClusterFactsStore {
  return onReleasesTable<ClusterFactsStore>(config, memoryClusterFacts, dynamoDbClusterFacts);
}
