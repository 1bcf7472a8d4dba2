/**
 * The status history from the CLI:
 *   snapshots RELEASE -n NS [--cluster C] [--since T] [--until T] [-o table|json|yaml]
 *   snapshots show ID [-o table|json|yaml]      (table: the status text as it was)
 *   snapshots diff ID [ID]  [-o table|json|yaml] (ID against the snapshot before it, or ID1 -> ID2)
 * Snapshot ids name their release, so show and diff need nothing else.
 */
import { ValidationError } from "../../shared/errors.ts";
import { systemClock } from "../../shared/ports.ts";
import { parseOutputFormat, renderStructured } from "../../shared/render/index.ts";
import { detailOf, diffSnapshots, listSnapshots, showSnapshot } from "../../shared/usecases/snapshots.ts";
import { releaseNameArgument, STORED_RELEASE_FLAGS } from "../lib/args.ts";
import { cliClusterScope } from "../lib/clusters.ts";
import { defineCommand } from "../lib/define-command.ts";
import { withCliHistory } from "../lib/history.ts";
import { printSnapshotDiff } from "../lib/snapshot-diff.ts";
import { renderSnapshotsTable } from "../lib/snapshots-table.ts";

const help = `usage: npm run --silent cli -- snapshots RELEASE [-n NAMESPACE] [--cluster C] [--since T] [--until T] [-o table|json|yaml]
       npm run --silent cli -- snapshots show ID [-o table|json|yaml]
       npm run --silent cli -- snapshots diff ID [ID] [-o table|json|yaml]

The status history of a release, newest first: one snapshot per stretch of audits that
saw the same health (FIRST SEEN .. LAST SEEN, SEEN times), with what changed.
'show' prints one snapshot's status text as it was (-o json: its resources' health);
'diff' compares a snapshot with the one before it (or ID with the second ID).

flags:
      --cluster string     cluster of the release (default "local")
  -n, --namespace string   namespace of the release (default "default")
      --since string       seen at or after: RFC 3339 time or a duration ago (30m, 6h, 7d)
      --until string       first seen at or before (same forms)
      --limit int          snapshots per page (default 100)
  -o, --output string      table, json or yaml (default "table")
`;

export const run = defineCommand({
  help,
  options: {
    ...STORED_RELEASE_FLAGS,
    since: { type: "string" },
    until: { type: "string" },
    limit: { type: "string" },
    output: { type: "string", short: "o" },
  },
  positionals: true,
  verbs: ["show", "diff"],
  async run({ values, positionals }, io) {
    const format = parseOutputFormat(values.output);
    const clusters = cliClusterScope(io.env);
    const clock = systemClock;
    if (positionals[0] === "show" || positionals[0] === "diff") {
      const [verb, first, second, ...extra] = positionals;
      if (!first || extra.length > 0 || (verb === "show" && second)) {
        throw new ValidationError(`usage: snapshots ${verb} ID${verb === "diff" ? " [ID]" : ""}`, "InvalidArguments");
      }
      return withCliHistory(io.env, async ({ snapshots }) => {
        const deps = { snapshots, clusters, clock };
        if (verb === "show") {
          const snapshot = await showSnapshot(deps, first);
          io.stdout.write(format === "table" ? (snapshot.text ?? "") : renderStructured(detailOf(snapshot), format));
          return 0;
        }
        // `diff A B`: B against A; `diff A`: A against the snapshot before it.
        const result = second ? await diffSnapshots(deps, second, first) : await diffSnapshots(deps, first);
        printSnapshotDiff(io, result, format);
        return 0;
      });
    }
    const name = releaseNameArgument("snapshots", positionals);
    const limit = values.limit === undefined ? undefined : pageLimit(values.limit);
    const key = { cluster: values.cluster, namespace: values.namespace, name };
    const page = await withCliHistory(io.env, ({ snapshots }) =>
      listSnapshots({ snapshots, clusters, clock }, key, { since: values.since, until: values.until, limit }),
    );
    if (format !== "table") {
      io.stdout.write(renderStructured(page, format));
      return 0;
    }
    io.stdout.write(renderSnapshotsTable(page));
    return 0;
  },
});

function pageLimit(value: string): number {
  if (!/^\d{1,4}$/.test(value) || Number(value) < 1 || Number(value) > 1000) {
    throw new ValidationError(`invalid --limit "${value}": must be 1..1000`, "InvalidFlag");
  }
  return Number(value);
}
