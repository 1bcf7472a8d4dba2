/**
 * A ClusterConnector over the simulated EKS's own kubeconfig (YAML in memory,
 * loaded with KubeConfig.loadFromString and read by the kubeconfig connectors'
 * accessFromKubeConfig): the status tests need a cluster, not the EKS auth path,
 * which has its own tests.
 */
import { KubeConfig } from "@kubernetes/client-node";
import type { SimulatedEks } from "../../local/sim/index.ts";
import type { ClusterAccess, ClusterConnector } from "../../shared/clusters/connector.ts";
import { accessFromKubeConfig } from "../../shared/clusters/kubeconfig-access.ts";

export interface CountingConnector extends ClusterConnector {
  invalidations: number;
  kubeConfigs: number;
}

export function simConnector(sim: SimulatedEks, tokenFor?: (cluster: string) => string): CountingConnector {
  const cache = new Map<string, ClusterAccess>();
  const connector: CountingConnector = {
    invalidations: 0,
    kubeConfigs: 0,
    list: () => sim.clusters().map((cluster) => ({ name: cluster.name, region: cluster.region })),
    async access(name) {
      const cached = cache.get(name);
      if (cached) return cached;
      connector.kubeConfigs++;
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromString(sim.cluster(name).kubeconfig());
      if (tokenFor) {
        const user = kubeConfig.getCurrentUser()!;
        kubeConfig.users = [{ ...user, token: tokenFor(name) }];
      }
      const access = await accessFromKubeConfig(kubeConfig);
      cache.set(name, access);
      return access;
    },
    invalidate(name) {
      connector.invalidations++;
      cache.delete(name);
    },
  };
  return connector;
}
