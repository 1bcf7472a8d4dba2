/**
 * What every command that talks to the deployed API shares (`remote …`, `push`, and so `helm fleet …`): the
 * flags that pick the API and the cluster, with Helm's meaning, and their resolution.
 *   -n, --namespace     the release's namespace (else HELM_NAMESPACE, which helm sets for its plugins, else "default")
 *   --kube-context C    the kubeconfig context whose EKS ARN names the cluster (else HELM_KUBECONTEXT, else the
 *                       current-context); --cluster NAME names it directly
 *   --endpoint URL      the API (else HELM_STATUS_ENDPOINT, else the config file: bin/lib/api-client.ts)
 */
import { ValidationError } from "../../shared/errors.ts";
import { validateClusterName, validateNamespace, validateReleaseName } from "../../shared/release/validation.ts";
import { type ApiClient, apiSettings, createApiClient } from "./api-client.ts";
import { clusterOfKubeContext } from "./kube-context.ts";

export const REMOTE_FLAGS = {
  endpoint: { type: "string" },
  cluster: { type: "string" },
  "kube-context": { type: "string" },
  kubeconfig: { type: "string" },
  namespace: { type: "string", short: "n" },
  timeout: { type: "string" },
} as const;

export const REMOTE_FLAGS_HELP = `      --endpoint URL         the API (else HELM_STATUS_ENDPOINT, else "endpoint:" in ~/.config/helm-status/config.yaml)
      --cluster NAME         the cluster, by its name in the API's registry
      --kube-context C       the cluster of this kubeconfig context (its EKS ARN); default: HELM_KUBECONTEXT, then
                             the current-context of --kubeconfig / KUBECONFIG / ~/.kube/config
  -n, --namespace NS         namespace of the release (default: HELM_NAMESPACE, then "default")
      --timeout SECONDS      how long to wait for the API (default 60)
`;

/** `-o/--output` of the `remote` commands: what they pass the API as `?output=`. */
export const OUTPUT_FLAG = { output: { type: "string", short: "o" } } as const;
const OUTPUTS = ["table", "json", "yaml"];

/** An `-o` value of a `remote` command (default: the table). */
export function remoteOutput(value: string | undefined): string {
  const format = value ?? "table";
  if (!OUTPUTS.includes(format)) {
    throw new ValidationError(`invalid output format "${format}": allowed values are table, json, yaml`, "InvalidFlag");
  }
  return format;
}

export interface RemoteTarget {
  api: ApiClient;
  cluster: string;
  namespace: string;
  timeoutMs: number;
}

export function remoteTarget(
  env: NodeJS.ProcessEnv,
  flags: {
    endpoint?: string;
    cluster?: string;
    "kube-context"?: string;
    kubeconfig?: string;
    namespace?: string;
    timeout?: string;
  },
  options: { needsCluster?: boolean } = {},
): RemoteTarget {
  const cluster = flags.cluster
    ? validateClusterName(flags.cluster)
    : options.needsCluster === false
      ? ""
      : clusterOfKubeContext(env, {
          kubeconfig: flags.kubeconfig || undefined,
          context: flags["kube-context"] || env.HELM_KUBECONTEXT?.trim() || undefined,
        }).cluster;
  const namespace = validateNamespace(flags.namespace ?? (env.HELM_NAMESPACE?.trim() || "default"));
  const timeout = flags.timeout ?? "60";
  if (!/^\d{1,4}$/.test(timeout) || Number(timeout) < 1) {
    throw new ValidationError(`invalid --timeout "${timeout}": must be a whole number of seconds >= 1`, "InvalidFlag");
  }
  const api = createApiClient(env, apiSettings(env, flags));
  return { api, cluster, namespace, timeoutMs: Number(timeout) * 1000 };
}

/**
 * What a `remote <command> RELEASE` asks, checked in this order: its one RELEASE argument, its -o, the API and
 * cluster (remoteTarget), and so the release's path there, `/clusters/C/namespaces/NS/releases/NAME`.
 */
export function remoteRelease(
  command: string,
  env: NodeJS.ProcessEnv,
  flags: Parameters<typeof remoteTarget>[1] & { output?: string },
  positionals: string[],
): { output: string; target: RemoteTarget; path: string } {
  if (positionals.length !== 1) {
    throw new ValidationError(
      `"${command}" requires exactly 1 argument (the release name), got ${positionals.length}: ${command} RELEASE -n NAMESPACE`,
      "InvalidArguments",
    );
  }
  const name = validateReleaseName(positionals[0]);
  const output = remoteOutput(flags.output);
  const target = remoteTarget(env, flags);
  return { output, target, path: `/clusters/${target.cluster}/namespaces/${target.namespace}/releases/${name}` };
}
