import type { SecureContextOptions } from "node:tls";
import type { Dispatcher } from "undici";

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
  /** The release sync's switch (docs/sync.md); absent = every namespace. */
  sync?: SyncPolicy;
  /** Availability objectives (shares, e.g. 0.995) for releases without a `helm-status/slo` annotation (docs/history.md). */
  slo?: RegistryObjectives;
}

/** The registry's objectives for a cluster: a default, and per release (`namespace/name`). */
export interface RegistryObjectives {
  default?: number;
  releases?: Record<string, number>;
}

/** Whether and where the release sync may read a cluster's Helm storage. */
export interface SyncPolicy {
  enabled: boolean;
  /** Only these namespaces (sorted); absent = all. */
  namespaces?: string[];
}

/** What may be shown about a cluster: nothing secret. */
export interface ClusterSummary {
  name: string;
  region: string;
  /** The registry's SLO objectives for its releases, when it gives any. */
  slo?: RegistryObjectives;
}

/**
 * What a request to one cluster's API server needs, resolved by its connector: the server, the TLS material
 * that verifies it (and a client certificate, if any) and the headers that authenticate. Nothing is left to
 * interpret — no file paths, no plugins to run — so the request path (shared/kube/http.ts) needs no kubeconfig
 * library. A connector returns the same object while it stays valid: a new object (a re-signed token) is how
 * the connection pool knows the credentials changed.
 */
export interface ClusterAccess extends Pick<SecureContextOptions, "ca" | "cert" | "key" | "pfx" | "passphrase"> {
  /** `https://…` (or `http://…` for kubectl proxy), without a trailing slash; may carry a path prefix. */
  server: string;
  /** TLS server name, when the kubeconfig sets `tls-server-name`. */
  servername?: string;
  /** Lower-cased headers every request carries (`authorization`). Secret: never logged. */
  headers: Record<string, string>;
  /** A cluster behind a kubeconfig `proxy-url`: the dispatcher that knows the proxy (HTTP or SOCKS). */
  proxy?: Dispatcher;
}

/**
 * How use cases reach a cluster. The EKS implementation signs a token and pairs it
 * with the cluster's endpoint and CA (DescribeCluster, or the registry) in memory on
 * demand and caches them; the kubeconfig-file implementation serves the CLI's
 * --kubeconfig/--context through @kubernetes/client-node.
 */
export interface ClusterConnector {
  /** The clusters this connector may reach. */
  list(): ClusterSummary[];
  /**
   * Server, CA and bearer token (TLS verification on), reused until shortly
   * before the token expires. Throws UnknownClusterError for a cluster not in
   * the registry, before any network call.
   */
  access(cluster: string): Promise<ClusterAccess>;
  /**
   * After a 401 ("credentials", the default): drop the cached credentials so the next access() re-signs. After a
   * certificate that does not verify or an address that does not answer ("endpoint"): the endpoint and CA may have
   * changed, so the next access() may look them up again (a connector that cannot ignores it).
   */
  invalidate(cluster: string, what?: "credentials" | "endpoint"): void;
}
