import { KubeConfig } from "@kubernetes/client-node";

/**
 * The in-memory KubeConfig of an EKS cluster (server, CA, bearer token; TLS
 * verification on). Its own module so the connector can load it on first use:
 * unbundled, @kubernetes/client-node takes 2–3 s to import, which the `token`
 * exec plugin (run by kubectl before every command) must not pay. The static,
 * named import is what lets esbuild drop the library's generated API client
 * from the Lambda bundle (a dynamic `import("@kubernetes/client-node")` kept
 * all 16 MB of it).
 */
export function eksKubeConfig(cluster: { name: string; endpoint: string; caData: string; token: string }): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: cluster.name, server: cluster.endpoint, caData: cluster.caData, skipTLSVerify: false }],
    users: [{ name: cluster.name, token: cluster.token }],
    contexts: [{ name: cluster.name, cluster: cluster.name, user: cluster.name }],
    currentContext: cluster.name,
  });
  return kubeConfig;
}
