import { clusterRegistryConfigured, loadClusterRegistry } from "../../shared/clusters/registry.ts";
import { type ClusterScope, registryScope } from "../../shared/clusters/scope.ts";

/**
 * The clusters the store commands (list, history, get manifest, import) may touch: the registry when
 * CLUSTERS or CLUSTERS_FILE is set, exactly as the API enforces it; otherwise any cluster, since the CLI's
 * embedded/local mode (`--cluster local`, no registry) has only the store to go by.
 */
export function cliClusterScope(env: NodeJS.ProcessEnv): ClusterScope {
  return clusterRegistryConfigured(env) ? registryScope(loadClusterRegistry(env)) : "any";
}
