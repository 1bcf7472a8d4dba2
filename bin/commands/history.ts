/** `history RELEASE -n NS [--cluster C] [--max N] [-o table|json|yaml]`: helm history from the store. */

import { ValidationError } from "../../shared/errors.ts";
import { MAX_REVISION } from "../../shared/release/validation.ts";
import { parseOutputFormat, renderStructured } from "../../shared/render/index.ts";
import { helmHistoryElements, renderHelmHistory } from "../../shared/render/tables/release-tables.ts";
import { HELM_HISTORY_MAX, releaseHistory } from "../../shared/usecases/history.ts";
import { releaseNameArgument, STORED_RELEASE_FLAGS } from "../lib/args.ts";
import { cliClusterScope } from "../lib/clusters.ts";
import { defineCommand } from "../lib/define-command.ts";
import { withCliStore } from "../lib/store.ts";

const help = `usage: npm run --silent cli -- history RELEASE [-n NAMESPACE] [--cluster C] [--max N] [-o table|json|yaml]

Prints the stored revisions of a release, oldest first, like helm history.

flags:
      --cluster string     cluster the release belongs to (default "local")
  -n, --namespace string   namespace of the release (default "default")
      --max int            maximum number of revisions to show (default 256)
  -o, --output string      table, json or yaml (default "table")
`;

export const run = defineCommand({
  help,
  options: {
    ...STORED_RELEASE_FLAGS,
    max: { type: "string", int: true, default: String(HELM_HISTORY_MAX) },
    output: { type: "string", short: "o" },
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
    const page = await withCliStore(io.env, (store) =>
      releaseHistory({ store, clusters }, key, { max: Math.max(max, 1) }),
    );
    const revisions = max > 0 ? page.items : [];
    io.stdout.write(
      format === "table" ? renderHelmHistory(revisions) : renderStructured(helmHistoryElements(revisions), format),
    );
    return 0;
  },
});

function parseMax(value: string): number {
  if (!/^[-+]?[0-9]{1,10}$/.test(value) || Number(value) > MAX_REVISION) {
    throw new ValidationError(`invalid --max ${JSON.stringify(value)}: must be an integer`, "InvalidMax");
  }
  return Number(value);
}
