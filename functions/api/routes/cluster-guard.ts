import type { ClusterConnector } from "../../../shared/clusters/connector.ts";
import { UnknownClusterError } from "../../../shared/clusters/errors.ts";

/**
 * Every /clusters/{cluster}/... route answers 404 for a cluster outside the
 * registry, even the ones that only read DynamoDB, so the API never serves or
 * accepts data for a cluster the product is not configured for.
 */
export function requireKnownCluster(clusters: ClusterConnector, cluster: string): void {
  const known = clusters.list().map((entry) => entry.name);
  if (!known.includes(cluster)) throw new UnknownClusterError(cluster, { known });
}
