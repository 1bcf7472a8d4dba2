/**
 * How the cluster-reading commands (status, sync) reach a cluster: `--kubeconfig FILE [--context X]`, or
 * `--cluster C` through EKS (the registry's entry, or `--region` without a registry).
 */
import type { ClusterConnector, ClusterEntry } from "../../shared/clusters/connector.ts";
import { createEksConnector } from "../../shared/eks/connector.ts";
import { ValidationError } from "../../shared/errors.ts";
import { validateClusterName } from "../../shared/release/validation.ts";
import { resolveCliCluster } from "./cli-cluster.ts";
import { eksClusterName } from "./kube-context.ts";

export function integerFlag(flag: string, value: string, min: number): number {
  if (!/^-?\d{1,10}$/.test(value) || Number(value) < min) {
    throw new ValidationError(`invalid ${flag} "${value}": must be an integer >= ${min}`, "InvalidFlag");
  }
  return Number(value);
}

function storeClusterName(contextName: string): string {
  const name = eksClusterName(contextName) ?? contextName;
  try {
    return validateClusterName(name);
  } catch {
    throw new ValidationError(
      `the kubeconfig context ${JSON.stringify(contextName)} does not name a cluster of the store: pass --cluster C`,
      "MissingFlag",
    );
  }
}

export async function clusterFor(
  env: NodeJS.ProcessEnv,
  flags: { cluster?: string; region?: string; kubeconfig?: string; context?: string },
): Promise<{ connector: ClusterConnector; cluster: string; entry?: ClusterEntry }> {
  if (flags.kubeconfig) {
    // Loaded only here: the kubeconfig library is ≈ 1 MB of the packed CLI, which the EKS path never needs.
    const { createKubeconfigFileConnector } = await import("../../shared/clusters/kubeconfig-file-connector.ts");
    const file = createKubeconfigFileConnector({ path: flags.kubeconfig, context: flags.context });
    // The store knows the cluster by its own name; the file by its context name, which
    // `aws eks update-kubeconfig` (and the simulator) set to the cluster's ARN.
    const cluster = flags.cluster ?? storeClusterName(file.cluster);
    return {
      cluster,
      connector: {
        list: () => [{ name: cluster, region: "" }],
        access: () => file.access(file.cluster),
        invalidate: () => file.invalidate(file.cluster),
      },
    };
  }
  if (flags.context) throw new ValidationError("--context needs --kubeconfig FILE", "InvalidFlag");
  if (!flags.cluster) {
    throw new ValidationError(
      "which cluster? pass --cluster C (EKS, via the registry) or --kubeconfig FILE",
      "MissingFlag",
    );
  }
  const { entry } = resolveCliCluster(env, { cluster: flags.cluster, region: flags.region });
  return { cluster: entry.name, entry, connector: eksConnectorFor(env, [entry]) };
}

/** The EKS connector for registry entries; AWS keys given in the command's environment win over the SDK's chain. */
export function eksConnectorFor(env: NodeJS.ProcessEnv, registry: ClusterEntry[]): ClusterConnector {
  const keys =
    env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
      ? {
          accessKeyId: env.AWS_ACCESS_KEY_ID,
          secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
          ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
        }
      : undefined;
  return createEksConnector({ registry, ...(keys ? { credentials: async () => keys } : {}) });
}
