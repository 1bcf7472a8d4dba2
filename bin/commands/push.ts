/**
 * `push RELEASE [-n NS]`: the one step a pipeline adds after `helm upgrade`: read the release's latest storage
 * object (Helm's Secret, or ConfigMap with HELM_DRIVER=configmap) with the pipeline's own kubeconfig, through
 * the product's kube client (shared/kube/session.ts: retries, deadline, exec plugins run in memory, nothing
 * written to disk), and POST it to the API's /clusters/{cluster}/releases/import signed with SigV4.
 * The cluster is the kube context's EKS ARN (or --cluster). Also `helm fleet push`.
 */
import { createKubeconfigFileConnector } from "../../shared/clusters/kubeconfig-file-connector.ts";
import { ValidationError } from "../../shared/errors.ts";
import { ConnectionPools } from "../../shared/kube/http.ts";
import { http2FromEnv } from "../../shared/kube/http2-env.ts";
import { ClusterLimit } from "../../shared/kube/limiter.ts";
import { KubeSession } from "../../shared/kube/session.ts";
import { validateReleaseName } from "../../shared/release/validation.ts";
import { parseOutputFormat, renderStructured } from "../../shared/render/index.ts";
import type { ImportSummary } from "../../shared/usecases/import.ts";
import { defineCommand } from "../lib/define-command.ts";
import { renderImportSummary } from "../lib/import-summary.ts";
import { kubeconfigFiles } from "../lib/kube-context.ts";
import { REMOTE_FLAGS, REMOTE_FLAGS_HELP, remoteTarget } from "../lib/remote.ts";

const help = `usage: npm run --silent cli -- push RELEASE [-n NAMESPACE] [--kube-context C] [--endpoint URL] [-o table|json|yaml]

Sends the latest revision of a release, as Helm stored it in the cluster, to the deployed API
(POST /clusters/CLUSTER/releases/import, signed with your AWS credentials): run it right after
'helm upgrade' in CI. The release is read with the kubeconfig (--kubeconfig, KUBECONFIG or ~/.kube/config)
and its context; HELM_DRIVER=configmap reads Helm's ConfigMaps instead of its Secrets.
Exits 1 when the API could not store it.

  -o, --output FORMAT        the API's summary as table (default), json or yaml
${REMOTE_FLAGS_HELP}`;

interface StorageObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; labels?: Record<string, string>; managedFields?: unknown };
}

export const run = defineCommand({
  help,
  options: { ...REMOTE_FLAGS, output: { type: "string", short: "o" } },
  positionals: true,
  async run({ values, positionals }, io) {
    if (positionals.length !== 1) {
      throw new ValidationError(
        `"push" requires exactly 1 argument (the release name), got ${positionals.length}: push RELEASE -n NAMESPACE`,
        "InvalidArguments",
      );
    }
    const name = validateReleaseName(positionals[0]);
    const format = parseOutputFormat(values.output);
    const target = remoteTarget(io.env, values);
    const object = await latestStorageObject(io.env, values, target.namespace, name, target.timeoutMs);
    const answer = await target.api.request({
      method: "POST",
      path: `/clusters/${target.cluster}/releases/import`,
      body: JSON.stringify(object),
      contentType: "application/json",
      timeoutMs: target.timeoutMs,
    });
    const summary = JSON.parse(answer.body) as ImportSummary;
    io.stdout.write(format === "table" ? renderImportSummary(summary) : renderStructured(summary, format));
    return summary.failed > 0 || answer.status === 207 ? 1 : 0;
  },
});

const DRIVERS: Record<string, "secrets" | "configmaps"> = {
  "": "secrets",
  secret: "secrets",
  secrets: "secrets",
  configmap: "configmaps",
  configmaps: "configmaps",
};

async function latestStorageObject(
  env: NodeJS.ProcessEnv,
  flags: { kubeconfig?: string; "kube-context"?: string },
  namespace: string,
  name: string,
  timeoutMs: number,
): Promise<StorageObject> {
  const driver = DRIVERS[(env.HELM_DRIVER ?? "").trim().toLowerCase()];
  if (!driver) {
    throw new ValidationError(
      `HELM_DRIVER=${env.HELM_DRIVER}: push reads Helm's storage in the cluster (secret or configmap), not ${env.HELM_DRIVER}`,
      "InvalidConfig",
    );
  }
  const context = flags["kube-context"] || env.HELM_KUBECONTEXT?.trim() || undefined;
  const file = kubeconfigConnector(kubeconfigFiles(env, flags.kubeconfig), context);
  const cluster = file.cluster;
  const pools = new ConnectionPools({ maxSockets: 1, http2: http2FromEnv(env) });
  const session = new KubeSession({
    cluster,
    connector: {
      list: () => [{ name: cluster, region: "" }],
      access: () => file.access(cluster),
      invalidate: () => file.invalidate(cluster),
    },
    pools,
    clusterLimit: new ClusterLimit({ maxInFlight: 1 }),
    deadline: Date.now() + timeoutMs,
  });
  try {
    const selector = encodeURIComponent(`owner=helm,name=${name}`);
    const result = await session.request(
      `/api/v1/namespaces/${namespace}/${driver}?labelSelector=${selector}`,
      "application/json",
    );
    if (result.kind !== "response") {
      throw new ValidationError(
        `reading Helm's ${driver} in ${namespace} on ${cluster}: ${result.message}`,
        "KubeUnavailable",
      );
    }
    const { status, body } = result.response;
    if (status !== 200) {
      const reason =
        status === 403 ? "forbidden (the pipeline's identity needs list on secrets there)" : `HTTP ${status}`;
      throw new ValidationError(`reading Helm's ${driver} in ${namespace} on ${cluster}: ${reason}`, "KubeRefused");
    }
    const items = ((JSON.parse(body) as { items?: StorageObject[] }).items ?? []).filter(
      (item) => item.metadata?.labels?.owner === "helm",
    );
    const latest = items.reduce<StorageObject | undefined>(
      (best, item) => (version(item) > (best ? version(best) : -1) ? item : best),
      undefined,
    );
    if (!latest)
      throw new ValidationError(
        `release: not found (no Helm ${driver} for "${name}" in ${namespace})`,
        "ReleaseNotFound",
      );
    if (latest.metadata) delete latest.metadata.managedFields;
    return { ...latest, apiVersion: "v1", kind: driver === "secrets" ? "Secret" : "ConfigMap" };
  } finally {
    session.close();
    await pools.close();
  }
}

/** KUBECONFIG may list several files: the first that has the context (or a current-context) is used. */
function kubeconfigConnector(paths: string[], context: string | undefined) {
  let first: unknown;
  for (const path of paths) {
    try {
      return createKubeconfigFileConnector({ path, context });
    } catch (error) {
      first ??= error;
    }
  }
  throw first;
}

function version(item: StorageObject): number {
  return Number(item.metadata?.labels?.version ?? -1);
}
