import type { KubeConfig } from "@kubernetes/client-node";

/** A registry entry as `CLUSTERS` / `CLUSTERS_FILE` give it (see shared/clusters/registry.ts). */
export interface ClusterEntry {
  name: string;
  region: string;
  /** IAM role to assume for this cluster. */
  roleArn?: string;
  externalId?: string;
  /** Endpoint overrides: private endpoints, or the simulated EKS. */
  eksEndpoint?: string;
  stsEndpoint?: string;
  /**
   * The cluster's API server URL and CA (base64 PEM), as `aws eks describe-cluster` prints them
   * (`cluster.endpoint`, `cluster.certificateAuthority.data`). Given together, DescribeCluster is skipped
   * at cold start (one AWS round trip less); a CA rotation then needs a registry update.
   */
  endpoint?: string;
  certificateAuthority?: string;
}

/** What may be shown about a cluster: nothing secret. */
export interface ClusterSummary {
  name: string;
  region: string;
}

/**
 * How use cases reach a cluster. The EKS implementation builds the KubeConfig in
 * memory on demand (DescribeCluster + presigned STS token) and caches it; the
 * kubeconfig-file implementation serves the CLI's --kubeconfig/--context.
 */
export interface ClusterConnector {
  /** The clusters this connector may reach. */
  list(): ClusterSummary[];
  /**
   * An in-memory KubeConfig (server, CA, bearer token; TLS verification on),
   * reused until shortly before its token expires. Throws UnknownClusterError for
   * a cluster not in the registry, before any network call.
   */
  kubeConfig(cluster: string): Promise<KubeConfig>;
  /** After a 401: drop the cached credentials so the next kubeConfig() re-signs. */
  invalidate(cluster: string): void;
}
