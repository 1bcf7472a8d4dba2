/**
 * How the `token` and `kubeconfig` commands find their cluster: from the registry when
 * CLUSTERS / CLUSTERS_FILE is set (its region, role and endpoints), else from
 * --region / AWS_REGION, like `aws eks get-token`.
 */
import { resolve } from "node:path";
import type { ClusterEntry } from "../../shared/clusters/connector.ts";
import { UnknownClusterError } from "../../shared/clusters/errors.ts";
import {
  clusterRegistryConfigured,
  loadClusterRegistry,
  validateClusterEntry,
} from "../../shared/clusters/registry.ts";
import { ValidationError } from "../../shared/errors.ts";

export interface CliCluster {
  entry: ClusterEntry;
  /** The variable to hand to a child `token` process so it resolves the same entry (exec plugin env). */
  registryEnv?: { name: "CLUSTERS" | "CLUSTERS_FILE"; value: string };
}

export function resolveCliCluster(env: NodeJS.ProcessEnv, flags: { cluster?: string; region?: string }): CliCluster {
  const { cluster, region } = flags;
  if (!cluster) throw new ValidationError("--cluster NAME is required", "MissingFlag");
  if (clusterRegistryConfigured(env)) {
    const registry = loadClusterRegistry(env);
    const entry = registry.find((candidate) => candidate.name === cluster);
    if (!entry) throw new UnknownClusterError(cluster, { known: registry.map((e) => e.name) });
    if (region && region !== entry.region) {
      throw new ValidationError(
        `--region ${region} contradicts the registry, where cluster "${cluster}" is in ${entry.region}`,
        "RegionMismatch",
      );
    }
    const registryEnv = env.CLUSTERS?.trim()
      ? { name: "CLUSTERS" as const, value: JSON.stringify([entry]) }
      : { name: "CLUSTERS_FILE" as const, value: resolve(env.CLUSTERS_FILE!) };
    return { entry, registryEnv };
  }
  const chosen = region || env.AWS_REGION || env.AWS_DEFAULT_REGION;
  if (!chosen) {
    throw new ValidationError(
      "no region: pass --region R (or set AWS_REGION), or configure the cluster registry (CLUSTERS or CLUSTERS_FILE)",
      "MissingFlag",
    );
  }
  try {
    return { entry: validateClusterEntry({ name: cluster, region: chosen }, "--cluster/--region") };
  } catch (error) {
    throw new ValidationError((error as Error).message, "InvalidFlag", { cause: error });
  }
}
