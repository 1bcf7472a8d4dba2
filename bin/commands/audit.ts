/**
 * `audit [--cluster C] [-o table|json]`: one audit pass in-process, without SQS:
 * every deployed release of the registry's clusters snapshotted into the status
 * history (the same code as the Lambda worker), then a summary of health per release.
 */

import { silentMetrics } from "../../shared/audit/change-events.ts";
import { ClusterLimiter } from "../../shared/audit/cluster-limiter.ts";
import { clusterRegistryConfigured, loadClusterRegistry } from "../../shared/clusters/registry.ts";
import { registryScope } from "../../shared/clusters/scope.ts";
import { ValidationError } from "../../shared/errors.ts";
import { http2FromEnv } from "../../shared/kube/http2-env.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { silentLogger, systemClock } from "../../shared/ports.ts";
import { validateClusterName } from "../../shared/release/validation.ts";
import { renderJson } from "../../shared/render/index.ts";
import { alignLines } from "../../shared/render/tables/kubectl-printer.ts";
import { HEALTH_SEVERITY, runIdFor } from "../../shared/snapshots/model.ts";
import { runAuditPass } from "../../shared/usecases/audit-run.ts";
import { eksConnectorFor } from "../lib/cluster-connector.ts";
import { defineCommand } from "../lib/define-command.ts";
import { withCliHistory } from "../lib/history.ts";

const help = `usage: npm run --silent cli -- audit [--cluster C] [-o table|json]

Audits every deployed release once, in this process (no queue): reads each from its
cluster like 'status', records it in the status history (SNAPSHOTS_TABLE), and prints
the health of each release. Needs the cluster registry (CLUSTERS or CLUSTERS_FILE).

flags:
      --cluster string       only this cluster
      --concurrency int      releases read at once per cluster (default 4)
  -o, --output string        table or json (default "table")
`;

export const run = defineCommand({
  help,
  options: {
    cluster: { type: "string" },
    concurrency: { type: "string", default: "4" },
    output: { type: "string", short: "o", default: "table" },
  },
  async run({ values }, io) {
    if (values.output !== "table" && values.output !== "json") {
      throw new ValidationError(`invalid output format "${values.output}": allowed values are table, json`);
    }
    if (!/^\d{1,2}$/.test(values.concurrency) || Number(values.concurrency) < 1) {
      throw new ValidationError(`invalid --concurrency "${values.concurrency}": must be 1..99`, "InvalidFlag");
    }
    if (!clusterRegistryConfigured(io.env)) {
      throw new ValidationError(
        "audit reads every cluster of the registry: set CLUSTERS or CLUSTERS_FILE (npm start prints them)",
        "MissingRegistry",
      );
    }
    const registry = loadClusterRegistry(io.env);
    const cluster = values.cluster === undefined ? undefined : validateClusterName(values.cluster);
    const connector = eksConnectorFor(io.env, registry);
    // One reader for the whole pass: every status shares its per-cluster limit and connections.
    const kube = createKubeReader({ connector, clock: systemClock, http2: http2FromEnv(io.env) });
    const progress = io.stderr.isTTY
      ? (done: number, total: number) => {
          const width = 30;
          const filled = total === 0 ? width : Math.round((done / total) * width);
          io.stderr.write(`\r[${"#".repeat(filled)}${" ".repeat(width - filled)}] ${done}/${total} releases`);
          if (done === total) io.stderr.write("\n");
        }
      : undefined;
    try {
      const result = await withCliHistory(
        io.env,
        ({ store, snapshots, auditRuns, notifications, sloStates, retentionDays }) =>
          runAuditPass(
            {
              store,
              snapshots,
              auditRuns,
              notifications,
              sloStates,
              clusters: connector,
              kube,
              scope: registryScope(registry),
              clock: systemClock,
              logger: silentLogger,
              metrics: silentMetrics,
              limiter: new ClusterLimiter(Number(values.concurrency)),
              retentionDays,
            },
            { runId: runIdFor(new Date(), "cli"), cluster, onProgress: progress },
          ),
      );
      const rows = [...result.releases].sort(
        (a, b) =>
          HEALTH_SEVERITY[(a.health ?? "Unknown") as keyof typeof HEALTH_SEVERITY] -
            HEALTH_SEVERITY[(b.health ?? "Unknown") as keyof typeof HEALTH_SEVERITY] ||
          `${a.cluster}/${a.namespace}/${a.name}`.localeCompare(`${b.cluster}/${b.namespace}/${b.name}`),
      );
      if (values.output === "json") {
        io.stdout.write(renderJson({ run: result.run, releases: rows }));
        return 0;
      }
      const lines = rows.map((r) => [r.cluster, r.namespace, r.name, r.health ?? "-", r.outcome, r.snapshotId ?? ""]);
      io.stdout.write(alignLines([["CLUSTER", "NAMESPACE", "NAME", "HEALTH", "SNAPSHOT", "ID"], ...lines]));
      const { run } = result;
      io.stdout.write(
        `\naudit ${run.runId}: ${run.done}/${run.planned} releases, ${run.unhealthy} not Current, ${run.failed} clusters not read, ${run.changed} changed\n`,
      );
      return 0;
    } finally {
      await kube.close();
    }
  },
});
