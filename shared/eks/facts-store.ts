/**
 * Where DescribeCluster's answer (endpoint + CA) outlives the process that asked: every cold start of every
 * function would otherwise ask EKS again for each cluster it touches (1,000 clusters, many environments: EKS
 * throttles DescribeCluster, docs/scale.md "Fixes"). In the releases table, one small item per cluster:
 *
 *   PK = CLUSTER#<name>   SK = FACTS   endpoint, caData (base64 PEM: public, what a kubeconfig holds), fetchedAt
 *
 * No index keys, so listings never see it; no ARN is kept. Reads and writes are best effort: a store that
 * fails costs a DescribeCluster, never a status.
 */
import { onReleasesTable, type StoreConfig } from "../store/config.ts";
import type { Table } from "../store/dynamodb-table.ts";

/** Endpoint and CA as DescribeCluster gave them, and when (epoch ms). */
export interface StoredClusterFacts {
  endpoint: string;
  caData: string;
  fetchedAt: number;
  version?: string;
}

export interface ClusterFactsStore {
  read(cluster: string): Promise<StoredClusterFacts | undefined>;
  write(cluster: string, facts: StoredClusterFacts): Promise<void>;
}

const partition = (cluster: string) => `CLUSTER#${cluster}`;
const FACTS_SORT_KEY = "FACTS";

export class DynamoDbClusterFacts implements ClusterFactsStore {
  readonly #table: Table;
  constructor(table: Table) {
    this.#table = table;
  }

  async read(cluster: string): Promise<StoredClusterFacts | undefined> {
    const item = await this.#table.get(partition(cluster), FACTS_SORT_KEY, "endpoint, caData, fetchedAt, version");
    if (typeof item?.endpoint !== "string" || typeof item.caData !== "string") return undefined;
    if (!item.endpoint.startsWith("https://") || typeof item.fetchedAt !== "number") return undefined;
    const facts: StoredClusterFacts = { endpoint: item.endpoint, caData: item.caData, fetchedAt: item.fetchedAt };
    if (typeof item.version === "string") facts.version = item.version;
    return facts;
  }

  async write(cluster: string, facts: StoredClusterFacts): Promise<void> {
    await this.#table.put({ PK: partition(cluster), SK: FACTS_SORT_KEY, ...facts });
  }
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
  return onReleasesTable<ClusterFactsStore>(config, memoryClusterFacts, (table) => new DynamoDbClusterFacts(table));
}
