/**
 * `reliability [RELEASE -n NS] [--cluster C] [--chart NAME] [--since D] [--until T] [-o table|json|yaml]`:
 * availability, time in each health, incidents, MTTR/MTBF, flaps, deploys and change-failure rate from the
 * status history, for one release or for a namespace, cluster, chart or the fleet (docs/history.md).
 */
import { ValidationError } from "../../shared/errors.ts";
import { systemClock } from "../../shared/ports.ts";
import { parseOutputFormat, renderStructured } from "../../shared/render/index.ts";
import { reliabilityOfRelease } from "../../shared/usecases/reliability.ts";
import { reliabilityOfScope } from "../../shared/usecases/reliability-scope.ts";
import { releaseReliabilityText, scopeReliabilityText } from "../../shared/usecases/reliability-text.ts";
import { cliClusterScope } from "../lib/clusters.ts";
import { defineCommand } from "../lib/define-command.ts";
import { withCliHistory } from "../lib/history.ts";

const help = `usage: npm run --silent cli -- reliability RELEASE [-n NAMESPACE] [--cluster C] [--since T] [--until T] [-o FORMAT]
       npm run --silent cli -- reliability [--cluster C] [-n NAMESPACE] [--chart NAME] [--since T] [--until T] [-o FORMAT]

How reliable a release (or every audited release of a namespace, cluster, chart, or the fleet) was over a
window, from the scheduled audits' history: coverage (the share of the window the audits observed; a gap is
never counted healthy), availability (the share of covered time Current), time in each health, incidents
(Failed, Unknown, NotFound, or unhealthy longer than 15 minutes), MTTR, MTBF, flaps (health changes within
15 minutes of the previous one), deploys (revisions the audits saw) and the change-failure rate (deploys
followed by an incident within an hour). Definitions: docs/history.md "Reliability".

flags:
      --cluster string     cluster (with RELEASE: default "local"; without: only this cluster)
  -n, --namespace string   namespace of RELEASE (default "default"); without RELEASE: only this namespace
      --chart string       without RELEASE: only releases of this chart
      --since string       window start: RFC 3339 or a duration ago (30m, 6h, 7d; default 30d)
      --until string       window end (same forms; default now)
  -o, --output string      table, json or yaml (default "table")
`;

export const run = defineCommand({
  help,
  options: {
    cluster: { type: "string" },
    namespace: { type: "string", short: "n" },
    chart: { type: "string" },
    since: { type: "string" },
    until: { type: "string" },
    output: { type: "string", short: "o" },
  },
  positionals: true,
  async run({ values, positionals }, io) {
    const format = parseOutputFormat(values.output);
    if (positionals.length > 1)
      throw new ValidationError(`unexpected argument "${positionals[1]}"`, "InvalidArguments");
    const clusters = cliClusterScope(io.env);
    const window = { since: values.since, until: values.until };
    return withCliHistory(io.env, async ({ snapshots, rollups, store, settings }) => {
      const deps = { snapshots, rollups, releases: store, clusters, clock: systemClock, settings };
      if (positionals[0] !== undefined) {
        if (values.chart !== undefined)
          throw new ValidationError("--chart is for reports without RELEASE", "InvalidFlag");
        const key = {
          cluster: values.cluster ?? "local",
          namespace: values.namespace ?? "default",
          name: positionals[0],
        };
        const report = await reliabilityOfRelease(deps, key, window);
        io.stdout.write(format === "table" ? releaseReliabilityText(report) : renderStructured(report, format));
        return 0;
      }
      const report = await reliabilityOfScope(deps, {
        ...window,
        cluster: values.cluster,
        namespace: values.namespace,
        chart: values.chart,
      });
      io.stdout.write(format === "table" ? scopeReliabilityText(report) : renderStructured(report, format));
      return 0;
    });
  },
});
