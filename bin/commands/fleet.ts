/** `fleet [--health H[,H]] [--cluster C] [-o table|json|yaml]`: the latest health of every audited release, worst first. */
import { ValidationError } from "../../shared/errors.ts";
import { systemClock } from "../../shared/ports.ts";
import { parseOutputFormat, renderStructured } from "../../shared/render/index.ts";
import { alignLines } from "../../shared/render/tables/kubectl-printer.ts";
import type { FleetEntry } from "../../shared/snapshots/model.ts";
import { fleetHealth } from "../../shared/usecases/snapshots.ts";
import { cliClusterScope } from "../lib/clusters.ts";
import { defineCommand } from "../lib/define-command.ts";
import { withCliHistory } from "../lib/history.ts";

const help = `usage: npm run --silent cli -- fleet [--health H[,H...]] [--cluster C] [-o table|json|yaml]

The latest audited health of every release, worst first (Failed, Unknown, NotFound,
Terminating, InProgress, Current), from the status history (run 'audit' or the
scheduled audits first).

flags:
      --health string    only these health statuses, e.g. Failed,Unknown
      --cluster string   only this cluster
  -o, --output string    table, json or yaml (default "table")
`;

const MAX_PAGES = 50;

export const run = defineCommand({
  help,
  options: {
    health: { type: "string" },
    cluster: { type: "string" },
    output: { type: "string", short: "o" },
  },
  async run({ values }, io) {
    const format = parseOutputFormat(values.output);
    const clusters = cliClusterScope(io.env);
    const entries: FleetEntry[] = [];
    await withCliHistory(io.env, async ({ snapshots }) => {
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const result = await fleetHealth(
          { snapshots, clusters, clock: systemClock },
          { health: values.health, cluster: values.cluster, limit: 1000, cursor },
        );
        entries.push(...result.items);
        cursor = result.cursor;
        if (!cursor) return;
      }
      throw new ValidationError(`more than ${MAX_PAGES * 1000} releases: narrow with --cluster or --health`);
    });
    if (format !== "table") {
      io.stdout.write(renderStructured({ releases: entries }, format));
      return 0;
    }
    const rows = entries.map((e) => [
      e.release.cluster,
      e.release.namespace,
      e.release.name,
      e.health.overall,
      e.since.replace("T", " ").replace(/\.\d{3}Z$/, "Z"),
      String(e.revision),
      e.health.message,
    ]);
    io.stdout.write(alignLines([["CLUSTER", "NAMESPACE", "NAME", "HEALTH", "SINCE", "REVISION", "MESSAGE"], ...rows]));
    return 0;
  },
});
