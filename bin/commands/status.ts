/**
 * `status RELEASE [-n NS] [--revision N] [-o table|json|yaml] [--cluster C | --kubeconfig F [--context X]]`:
 * `helm status` for a release in the store, live state read from the cluster.
 */

import { ValidationError } from "../../shared/errors.ts";
import { http2FromEnv } from "../../shared/kube/http2-env.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { silentLogger, systemClock } from "../../shared/ports.ts";
import { revisionOrLatest } from "../../shared/release/validation.ts";
import { parseOutputFormat } from "../../shared/render/formats.ts";
import { renderStatus } from "../../shared/render/status/formats.ts";
import { releaseStatus } from "../../shared/usecases/status.ts";
import { LIVE_CLUSTER_FLAGS, releaseNameArgument } from "../lib/args.ts";
import { clusterFor, integerFlag } from "../lib/cluster-connector.ts";
import { defineCommand } from "../lib/define-command.ts";
import { printStatusAt } from "../lib/status-at.ts";
import { cliAttributionStore, withCliStore } from "../lib/store.ts";

const usage = `usage: npm run --silent cli -- status RELEASE [-n NAMESPACE] [--revision N] [-o table|json|yaml]
                                    [--cluster C | --kubeconfig FILE [--context X] [--cluster C]]
       npm run --silent cli -- status RELEASE [-n NAMESPACE] [--cluster C] --at TIME [--against TIME] [-o FORMAT]

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
      --at TIME           the status as the audits saw it then (RFC 3339, or a duration ago: 2h, -2h, 7d),
                          from the status history, with a first line naming the snapshot; no cluster read
      --against TIME      with --at: what changed between the snapshots covering the two times
`;

export const run = defineCommand({
  help: usage,
  options: {
    namespace: { type: "string", short: "n" },
    revision: { type: "string", int: true },
    output: { type: "string", short: "o", default: "table" },
    ...LIVE_CLUSTER_FLAGS,
    concurrency: { type: "string" },
    timeout: { type: "string" },
    "no-drift": { type: "boolean" },
    at: { type: "string" },
    against: { type: "string" },
  },
  positionals: true,
  async run({ values, positionals }, io) {
    const name = releaseNameArgument("status", positionals);
    const output = parseOutputFormat(values.output);
    if (values.against !== undefined && values.at === undefined) {
      throw new ValidationError("--against needs --at TIME", "InvalidFlag");
    }
    if (values.at !== undefined) {
      if (values.revision !== undefined || values.kubeconfig !== undefined) {
        throw new ValidationError(
          "--at reads the status history: it takes no --revision or --kubeconfig",
          "InvalidFlag",
        );
      }
      const key = { cluster: values.cluster ?? "local", namespace: values.namespace ?? "default", name };
      return printStatusAt(io, key, { at: values.at, against: values.against }, output);
    }
    const revision = revisionOrLatest(values.revision);
    const concurrency =
      values.concurrency === undefined ? undefined : integerFlag("--concurrency", values.concurrency, 1);
    const timeoutSeconds = values.timeout === undefined ? 60 : integerFlag("--timeout", values.timeout, 1);
    const { connector, cluster } = await clusterFor(io.env, values);
    // One status per process: no manifest cache worth keeping.
    const kube = createKubeReader({
      connector,
      clock: systemClock,
      cache: { manifestEntries: 0 },
      http2: http2FromEnv(io.env),
    });

    try {
      const report = await withCliStore(io.env, (store, context) =>
        releaseStatus(
          // CHANGED BY names the person the workers found in the audit log (docs/who.md); the text never an ARN.
          { store, kube, logger: silentLogger, attributions: cliAttributionStore(context) },
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
      io.stdout.write(renderStatus(report, output));
      return 0;
    } finally {
      await kube.close();
    }
  },
});
