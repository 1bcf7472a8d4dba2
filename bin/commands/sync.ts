/**
 * `sync [--cluster C | --kubeconfig F] [-n NS | -A] [-o table|json]`: brings the cluster's Helm storage into the
 * store (docs/sync.md), incrementally; a summary table, or the summary as JSON; progress on a terminal.
 */
import { ValidationError } from "../../shared/errors.ts";
import { http2FromEnv } from "../../shared/kube/http2-env.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { silentLogger, systemClock } from "../../shared/ports.ts";
import { renderJson } from "../../shared/render/index.ts";
import { renderSyncText } from "../../shared/render/sync/text.ts";
import { openSyncStateStore } from "../../shared/store/config.ts";
import { syncCluster } from "../../shared/usecases/sync.ts";
import { whoLookupFromEnv } from "../../shared/who/config.ts";
import { LIVE_CLUSTER_FLAGS } from "../lib/args.ts";
import { clusterFor, integerFlag } from "../lib/cluster-connector.ts";
import { defineCommand } from "../lib/define-command.ts";
import { cliAttributionQueue, withCliStore } from "../lib/store.ts";

const usage = `usage: npm run --silent cli -- sync [--cluster C | --kubeconfig FILE [--context X]] [-n NAMESPACE | -A] [-o table|json]

Reads the cluster's Helm storage (Secrets and ConfigMaps labelled owner=helm) and brings the
store up to date: new revisions imported, status changes applied, revisions whose storage object
is gone removed (each named in the summary). Only new or changed objects are read whole; a run
that stops early (--timeout) is continued by the next one.

  -n, --namespace NS      only this namespace (repeatable)
  -A, --all-namespaces    every namespace (the default, or the registry's sync.namespaces)
  -o, --output FORMAT     table (default) or json
      --cluster C         the cluster: from the registry (CLUSTERS / CLUSTERS_FILE) through EKS,
                          or with --kubeconfig the store's cluster name (default: the context name)
      --region R          the cluster's region when there is no registry (or AWS_REGION)
      --kubeconfig FILE   read the cluster through this kubeconfig instead of EKS
      --context X         the kubeconfig context (default: its current-context)
      --timeout SECONDS   stop starting new reads after this (default 300); the next run continues
      --page-size N       objects per LIST page (default 500)
      --concurrency N     GETs and imports at once (default 16)
      --lease SECONDS     how long this run holds the cluster without renewing it (default 60; renewed
                          after every LIST page): a run killed mid-way blocks the next one that long
`;

export const run = defineCommand({
  help: usage,
  options: {
    namespace: { type: "string", short: "n", multiple: true },
    "all-namespaces": { type: "boolean", short: "A" },
    output: { type: "string", short: "o", default: "table" },
    ...LIVE_CLUSTER_FLAGS,
    timeout: { type: "string" },
    "page-size": { type: "string" },
    concurrency: { type: "string" },
    lease: { type: "string" },
  },
  async run({ values }, io) {
    if (values.output !== "table" && values.output !== "json") {
      throw new ValidationError(`invalid output format "${values.output}": allowed values are table, json`);
    }
    const namespaces = values.namespace as string[] | undefined;
    if (namespaces?.length && values["all-namespaces"]) {
      throw new ValidationError("-n and -A go separately: one namespace at a time, or all of them", "InvalidFlag");
    }
    const timeoutSeconds = values.timeout === undefined ? 300 : integerFlag("--timeout", values.timeout, 1);
    const pageSize = values["page-size"] === undefined ? undefined : integerFlag("--page-size", values["page-size"], 1);
    const concurrency =
      values.concurrency === undefined ? undefined : integerFlag("--concurrency", values.concurrency, 1);
    const leaseSeconds = values.lease === undefined ? undefined : integerFlag("--lease", values.lease, 1);
    const { connector, cluster, entry } = await clusterFor(io.env, values);
    const kube = createKubeReader({
      connector,
      clock: systemClock,
      cache: { manifestEntries: 0 },
      http2: http2FromEnv(io.env),
    });
    const progress = io.stderr.isTTY
      ? (s: { listed: number; fetched: number; imported: number; failed: number }) =>
          io.stderr.write(`\r${s.listed} listed, ${s.fetched} fetched, ${s.imported} imported, ${s.failed} failed`)
      : undefined;
    try {
      const summary = await withCliStore(io.env, (store, context) =>
        syncCluster(
          {
            store,
            syncState: openSyncStateStore(context.config),
            kube,
            scope: connector,
            logger: silentLogger,
            // Its new revisions are attributed like the scheduled sync's (docs/who.md) where a worker looks them up.
            attributions: cliAttributionQueue(
              context,
              whoLookupFromEnv(io.env, (message) => new ValidationError(message)),
            ),
          },
          {
            cluster,
            namespaces,
            policy: entry?.sync,
            deadline: systemClock.now().getTime() + timeoutSeconds * 1000,
            pageSize,
            concurrency,
            leaseMs: leaseSeconds === undefined ? undefined : leaseSeconds * 1000,
            onProgress: progress,
          },
        ),
      );
      if (progress) io.stderr.write("\n");
      io.stdout.write(values.output === "json" ? renderJson(summary) : renderSyncText(summary));
      return summary.failed > 0 || !summary.complete ? 1 : 0;
    } finally {
      await kube.close();
    }
  },
});
