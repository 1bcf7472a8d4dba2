import type { RequestOptions } from "node:https";
import { type KubeConfig, RequestContext } from "@kubernetes/client-node";
import type { ClusterAccess } from "./connector.ts";

/**
 * A kubeconfig's current context as a ClusterAccess, interpreted by @kubernetes/client-node
 * (`applyToHTTPSOptions`: CA and client certificate, inline or from files, bearer token, exec and
 * auth-provider plugins), so nothing here reads credentials by hand. Only kubeconfig connectors (the CLI's
 * --kubeconfig) load this module: the EKS connector builds its access itself, so a Lambda never imports the
 * library.
 */
export async function accessFromKubeConfig(kubeConfig: KubeConfig): Promise<ClusterAccess> {
  const target = kubeConfig.getCurrentCluster();
  if (!target) throw new Error("the kubeconfig has no current cluster");
  if (target.skipTLSVerify) throw new Error("the kubeconfig sets insecure-skip-tls-verify; TLS verification stays on");
  const server = target.server.replace(/\/+$/, "");
  const url = new URL(server);
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new Error(`unsupported server URL scheme ${url.protocol} (https:// or http://)`);
  }
  if (target.proxyUrl) {
    // The library's dispatcher knows HTTP and SOCKS proxies.
    const probe = new RequestContext(`${server}/`, "GET");
    await kubeConfig.applySecurityAuthentication(probe);
    const proxy = probe.getDispatcher();
    if (!proxy) throw new Error("the kubeconfig's proxy-url gave no dispatcher");
    return { server, headers: lowerCased(probe.getHeaders()), proxy };
  }
  const options: RequestOptions & { headers?: Record<string, string> } = {};
  await credentialOptions(kubeConfig, options, url.protocol === "https:");
  if (options.rejectUnauthorized === false) throw new Error("TLS verification cannot be disabled");
  const headers = lowerCased(options.headers ?? {});
  if (options.auth) headers.authorization = `Basic ${Buffer.from(options.auth).toString("base64")}`;
  const { ca, cert, key, pfx, passphrase, servername } = options;
  return { server, ca, cert, key, pfx, passphrase, servername, headers };
}

/**
 * The library's TLS material and Authorization header (token, exec and auth-provider plugins). Its public
 * `applyToHTTPSOptions` refuses an http:// server outright (it builds an agent we do not use), so for those
 * the step it is made of, `applyOptions`, is called directly: the same credentials, no TLS to configure.
 */
async function credentialOptions(kubeConfig: KubeConfig, options: RequestOptions, tls: boolean): Promise<void> {
  if (tls) return kubeConfig.applyToHTTPSOptions(options);
  const applyOptions = (kubeConfig as unknown as { applyOptions?: (opts: RequestOptions) => Promise<void> })
    .applyOptions;
  if (typeof applyOptions !== "function") throw new Error("this @kubernetes/client-node cannot serve http:// servers");
  await applyOptions.call(kubeConfig, options);
  const user = kubeConfig.getCurrentUser();
  if (user?.username) options.auth = `${user.username}:${user.password ?? ""}`;
}

function lowerCased(headers: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name.toLowerCase()] = `${value}`;
  return out;
}
