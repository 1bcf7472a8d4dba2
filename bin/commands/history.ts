/** `history RELEASE -n NS [--cluster C] [--max N] [--who] [-o table|json|yaml]`: helm history from the store. */

import { ValidationError } from "../../shared/errors.ts";
import { MAX_REVISION } from "../../shared/release/validation.ts";
import { parseOutputFormat, renderStructured } from "../../shared/render/index.ts";
import { helmHistoryElements, renderHelmHistory } from "../../shared/render/tables/release-tables.ts";
import { HELM_HISTORY_MAX, releaseHistory } from "../../shared/usecases/history.ts";
import { releaseNameArgument, STORED_RELEASE_FLAGS } from "../lib/args.ts";
import { cliClusterScope } from "../lib/clusters.ts";
import { defineCommand } from "../lib/define-command.ts";
import { cliAttributionStore, withCliStore } from "../lib/store.ts";

const help = `usage: npm run --silent cli -- history RELEASE [-n NAMESPACE] [--cluster C] [--max N] [--who] [-o table|json|yaml]

Prints the stored revisions of a release, oldest first, like helm history. JSON and YAML name who created each
revision when the EKS audit log said (docs/who.md); the table does with --who.

flags:
      --cluster string     cluster the release belongs to (default "local")
  -n, --namespace string   namespace of the release (default "default")
      --max int            maximum number of revisions to show (default 256)
  -o, --output string      table, json or yaml (default "table")
      --who                a WHO column after Helm's: who created each revision (docs/who.md)
`;

export const run = defineCommand({
  help,
  options: {
    ...STORED_RELEASE_FLAGS,
    max: { type: "string", int: true, default: String(HELM_HISTORY_MAX) },
    output: { type: "string", short: "o" },
    who: { type: "boolean" },
  },
  positionals: true,
  async run({ values, positionals }, io) {
    const name = releaseNameArgument("history", positionals);
    const max = parseMax(values.max);
    const format = parseOutputFormat(values.output);
    const key = { cluster: values.cluster, namespace: values.namespace, name };
    // The newest `max` revisions are one page: the store returns newest first. Helm's --max 0
    // (or less) still looks the release up, then prints no revision: the header alone.
    const clusters = cliClusterScope(io.env);
    const page = await withCliStore(io.env, (store, context) =>
      releaseHistory({ store, clusters, attributions: cliAttributionStore(context) }, key, { max: Math.max(max, 1) }),
    );
    const revisions = max > 0 ? page.items : [];
    io.stdout.write(
      format === "table"
        ? renderHelmHistory(revisions, { who: values.who === true, auditLogging: page.auditLogging })
        : renderStructured(helmHistoryElements(revisions), format),
    );
    // Helm's document stays what scripts parse: the note is said once on stderr.
    if (page.auditLogging && format !== "table") io.stderr.write(`${page.auditLogging}\n`);
    return 0;
  },
});

function parseMax(value: string): number {
  if (!/^[-+]?[0-9]{1,10}$/.test(value) || Number(value) > MAX_REVISION) {
    throw new ValidationError(`invalid --max ${JSON.stringify(value)}: must be an integer`, "InvalidMax");
  }
  return Number(value);
}
