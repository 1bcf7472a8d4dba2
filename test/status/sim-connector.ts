/**
 * A ClusterConnector over the simulated EKS's own kubeconfig (YAML in memory,
 * loaded with KubeConfig.loadFromString): the status tests need a cluster, not
 * the EKS auth path, which has its own tests.
 */
import { KubeConfig } from "@kubernetes/client-node";
import type { SimulatedEks } from "../../local/sim/index.ts";
import type { ClusterConnector } from "../../shared/clusters/connector.ts";

export interface CountingConnector extends ClusterConnector {
  invalidations: number;
  kubeConfigs: number;
}

export function simConnector(sim: SimulatedEks, tokenFor?: (cluster: string) => string): CountingConnector {
  const cache = new Map<string, KubeConfig>();
  const connector: CountingConnector = {
    invalidations: 0,
    kubeConfigs: 0,
    list: () => sim.clusters().map((cluster) => ({ name: cluster.name, region: cluster.region })),
    async kubeConfig(name) {
      const cached = cache.get(name);
      if (cached) return cached;
      connector.kubeConfigs++;
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromString(sim.cluster(name).kubeconfig());
      if (tokenFor) {
        const user = kubeConfig.getCurrentUser()!;
        kubeConfig.users = [{ ...user, token: tokenFor(name) }];
      }
      cache.set(name, kubeConfig);
      return kubeConfig;
    },
    invalidate(name) {
      connector.invalidations++;
      cache.delete(name);
    },
  };
  return connector;
}
