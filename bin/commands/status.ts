/**
 * `status RELEASE [-n NS] [--revision N] [-o table|json|yaml] [--cluster C | --kubeconfig F [--context X]]`:
 * `helm status` for a release in the store, live state read from the cluster.
 */

import type { ClusterConnector } from "../../shared/clusters/connector.ts";
import { createKubeconfigFileConnector } from "../../shared/clusters/kubeconfig-file-connector.ts";
import { createEksConnector } from "../../shared/eks/connector.ts";
import { ValidationError } from "../../shared/errors.ts";
import { http2FromEnv } from "../../shared/kube/http2-env.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { silentLogger, systemClock } from "../../shared/ports.ts";
import { revisionOrLatest, validateClusterName } from "../../shared/release/validation.ts";
import { parseOutputFormat } from "../../shared/render/formats.ts";
import { renderStatusJson, renderStatusYaml } from "../../shared/render/status/json.ts";
import { renderStatusText } from "../../shared/render/status/text.ts";
import { releaseStatus } from "../../shared/usecases/status.ts";
import { releaseNameArgument } from "../lib/args.ts";
import { resolveCliCluster } from "../lib/cli-cluster.ts";
import { defineCommand } from "../lib/define-command.ts";
import { eksClusterName } from "../lib/kube-context.ts";
import { withCliStore } from "../lib/store.ts";

const usage = `usage: npm run --silent cli -- status RELEASE [-n NAMESPACE] [--revision N] [-o table|json|yaml]
                                    [--cluster C | --kubeconfig FILE [--context X] [--cluster C]]

Shows the status of a release stored for a cluster, with its resources read live
(in parallel) from the cluster, like 'helm status'.

  -n, --namespace NS      namespace of the release (default "default")
      --revision N        that revision instead of the latest (0 or less: the latest)
  -o, --output FORMAT     table (default), json or yaml; Secret values are never printed
      --cluster C         the cluster: from the registry (CLUSTERS / CLUSTERS_FILE) through EKS,
                          or with --kubeconfig the store's cluster name (default: the context name)
      --region R          the cluster's region when there is no registry (or AWS_REGION)
      --kubeconfig FILE   read the cluster through this kubeconfig instead of EKS
      --context X         the kubeconfig context (default: its current-context)
      --concurrency N     requests in flight at once (default 64)
      --timeout SECONDS   overall deadline; what is not read by then is reported (default 60)
      --no-drift          skip comparing the live objects with the manifest (no DRIFT line/section)
`;

export const run = defineCommand({
  help: usage,
  options: {
    namespace: { type: "string", short: "n" },
    revision: { type: "string" },
    output: { type: "string", short: "o", default: "table" },
    cluster: { type: "string" },
    region: { type: "string" },
    kubeconfig: { type: "string" },
    context: { type: "string" },
    concurrency: { type: "string" },
    timeout: { type: "string" },
    "no-drift": { type: "boolean" },
  },
  positionals: true,
  async run({ values, positionals }, io) {
    const name = releaseNameArgument("status", positionals);
    const output = parseOutputFormat(values.output);
    const revision = revisionOrLatest(values.revision);
    const concurrency =
      values.concurrency === undefined ? undefined : integerFlag("--concurrency", values.concurrency, 1);
    const timeoutSeconds = values.timeout === undefined ? 60 : integerFlag("--timeout", values.timeout, 1);
    const { connector, cluster } = clusterFor(io.env, values);
    // One status per process: no manifest cache worth keeping.
    const kube = createKubeReader({
      connector,
      clock: systemClock,
      cache: { manifestEntries: 0 },
      http2: http2FromEnv(io.env),
    });

    try {
      const report = await withCliStore(io.env, (store) =>
        releaseStatus(
          { store, kube, logger: silentLogger },
          {
            cluster,
            namespace: values.namespace ?? "default",
            name,
            revision,
            deadline: systemClock.now().getTime() + timeoutSeconds * 1000,
            concurrency,
            drift: !values["no-drift"],
          },
        ),
      );
      if (output === "json") io.stdout.write(renderStatusJson(report));
      else if (output === "yaml") io.stdout.write(renderStatusYaml(report));
      else io.stdout.write(renderStatusText(report));
      return 0;
    } finally {
      await kube.close();
    }
  },
});

function integerFlag(flag: string, value: string, min: number): number {
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

function clusterFor(
  env: NodeJS.ProcessEnv,
  flags: { cluster?: string; region?: string; kubeconfig?: string; context?: string },
): { connector: ClusterConnector; cluster: string } {
  if (flags.kubeconfig) {
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
  return { cluster: entry.name, connector: createEksConnector({ registry: [entry] }) };
}
