/**
 * A ClusterConnector over a plain kubeconfig file, for the CLI's `--kubeconfig FILE
 * [--context X]` and local users. Cluster names are the file's context names; the
 * selected context (--context, else current-context) is the default cluster. The
 * file is read, never written; users with exec plugins work as with kubectl.
 */
import { readFileSync } from "node:fs";
import { KubeConfig } from "@kubernetes/client-node";
import { firstLine } from "../input/values.ts";
import type { ClusterAccess, ClusterConnector, ClusterSummary } from "./connector.ts";
import { KubeconfigFileError, UnknownClusterError } from "./errors.ts";
import { accessFromKubeConfig } from "./kubeconfig-access.ts";

export interface KubeconfigFileConnector extends ClusterConnector {
  /** The selected context: what the CLI passes as the cluster name. */
  readonly cluster: string;
  /** The file's KubeConfig with `cluster` as its current context (parsed once, until invalidated). */
  kubeConfig(cluster: string): Promise<KubeConfig>;
}

export function createKubeconfigFileConnector(options: { path: string; context?: string }): KubeconfigFileConnector {
  const { path } = options;
  let text = readKubeconfig(path);
  const first = parseKubeconfig(text, path);
  const contexts = first.getContexts().map((context) => context.name);
  const selected = options.context ?? first.getCurrentContext();
  if (!selected) {
    throw new KubeconfigFileError(
      `kubeconfig ${path} has no current-context: pass --context (available: ${contexts.join(", ") || "none"})`,
    );
  }
  const cache = new Map<string, KubeConfig>();
  const accesses = new Map<string, Promise<ClusterAccess>>();
  checkContext(first, selected, path, contexts);

  return {
    cluster: selected,
    list(): ClusterSummary[] {
      return [{ name: selected, region: "" }];
    },
    async kubeConfig(cluster: string): Promise<KubeConfig> {
      const cached = cache.get(cluster);
      if (cached) return cached;
      if (!contexts.includes(cluster)) throw new UnknownClusterError(cluster, { known: contexts });
      const kubeConfig = parseKubeconfig(text, path);
      checkContext(kubeConfig, cluster, path, contexts);
      kubeConfig.setCurrentContext(cluster);
      cache.set(cluster, kubeConfig);
      return kubeConfig;
    },
    access(cluster: string): Promise<ClusterAccess> {
      // Exec and auth-provider plugins run once per access, as kubectl runs them once per command.
      let access = accesses.get(cluster);
      if (!access) {
        access = this.kubeConfig(cluster).then(accessFromKubeConfig);
        accesses.set(cluster, access);
        access.catch(() => accesses.delete(cluster));
      }
      return access;
    },
    invalidate(cluster: string): void {
      // The file may carry a static token that someone just rotated: read it again next time.
      cache.delete(cluster);
      accesses.delete(cluster);
      try {
        text = readKubeconfig(path);
      } catch {
        // Keep the last good copy; the next request reports the 401 again if it is still bad.
      }
    },
  };
}

function readKubeconfig(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new KubeconfigFileError(`cannot read kubeconfig ${path} (${reason})`, { cause: error });
  }
}

function parseKubeconfig(text: string, path: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  try {
    kubeConfig.loadFromString(text);
  } catch (error) {
    const reason = firstLine(error);
    throw new KubeconfigFileError(`kubeconfig ${path} is not valid: ${reason}`, { cause: error });
  }
  return kubeConfig;
}

function checkContext(kubeConfig: KubeConfig, name: string, path: string, contexts: string[]): void {
  const context = kubeConfig.getContextObject(name);
  if (!context) {
    throw new KubeconfigFileError(
      `kubeconfig ${path} has no context "${name}" (available: ${contexts.join(", ") || "none"})`,
    );
  }
  const cluster = kubeConfig.getCluster(context.cluster);
  if (!cluster?.server) {
    throw new KubeconfigFileError(
      `kubeconfig ${path}: context "${name}" names cluster "${context.cluster}", which has no server`,
    );
  }
  if (cluster.skipTLSVerify) {
    throw new KubeconfigFileError(
      `kubeconfig ${path}: cluster "${context.cluster}" sets insecure-skip-tls-verify; this tool never disables TLS verification`,
    );
  }
}
