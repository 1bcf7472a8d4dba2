/** `list [flags]`: helm list from the store, with helm v4's flags (shared/usecases/helm-list.ts). */
import { ValidationError } from "../../shared/errors.ts";
import type { ReleaseStatus } from "../../shared/release/model.ts";
import { parseOutputFormat } from "../../shared/render/index.ts";
import { renderHelmListAs } from "../../shared/render/tables/release-tables.ts";
import { helmList, LIST_STATE_FLAGS, type ListStateFlag } from "../../shared/usecases/helm-list.ts";
import { HELM_LIST_FLAGS } from "../lib/args.ts";
import { cliClusterScope } from "../lib/clusters.ts";
import { defineCommand } from "../lib/define-command.ts";
import { withCliStore } from "../lib/store.ts";

const help = `usage: npm run --silent cli -- list [--cluster C] [-n NAMESPACE | -A] [flags]

Lists the stored releases like helm list: the latest revision of each (every status
unless a state flag is given; --superseded alone lists superseded revisions).

flags:
      --cluster string       cluster the releases belong to (default "local")
  -n, --namespace string     namespace (default "default")
  -A, --all-namespaces       list releases across all namespaces
  -d, --date                 sort by release date
      --deployed             show deployed releases
      --failed               show failed releases
      --pending              show pending releases
      --superseded           show superseded releases
      --uninstalled          show uninstalled releases (if 'helm uninstall --keep-history' was used)
      --uninstalling         show releases that are currently being uninstalled
      --status string        only releases whose latest revision has exactly this status
  -f, --filter string        a regular expression; releases whose name matches it are listed
  -l, --selector string      label selector (e.g. -l key1=value1,key2!=value2): release labels and
                             Helm's storage labels (name, owner, status, version)
  -m, --max int              maximum number of releases to fetch (default 256; 0: no limit)
      --offset int           next release index in the list, used to offset from start value
  -r, --reverse              reverse the sort order
  -q, --short                output short (quiet) listing format
      --no-headers           don't print headers when using the default output format
      --time-format string   format time using golang time formatter, e.g. "2006-01-02 15:04:05Z0700"
  -o, --output string        table, json or yaml (default "table")
`;

export const run = defineCommand({
  help,
  options: {
    cluster: { type: "string", default: "local" },
    namespace: { type: "string", short: "n" },
    ...HELM_LIST_FLAGS,
    "no-headers": { type: "boolean" },
    output: { type: "string", short: "o" },
  },
  async run({ values }, io) {
    if (values.namespace !== undefined && values["all-namespaces"]) {
      throw new ValidationError("use either -n NAMESPACE or -A, not both");
    }
    const format = parseOutputFormat(values.output);
    const states = (Object.keys(LIST_STATE_FLAGS) as ListStateFlag[]).filter((state) => values[state]);
    const query = {
      cluster: values.cluster,
      namespace: values["all-namespaces"] ? undefined : (values.namespace ?? "default"),
      states,
      status: values.status as ReleaseStatus | undefined,
      filter: values.filter,
      selector: values.selector,
      max: integerFlag("-m, --max", values.max),
      offset: integerFlag("--offset", values.offset),
      byDate: values.date,
      reverse: values.reverse,
    };
    const clusters = cliClusterScope(io.env);
    const { releases } = await withCliStore(io.env, (store) => helmList({ store, clusters }, query));
    io.stdout.write(
      renderHelmListAs(releases, format, {
        short: values.short,
        noHeaders: values["no-headers"],
        timeFormat: values["time-format"],
      }),
    );
    return 0;
  },
});

/** A Go int flag: an optional sign and digits, cobra's wording when it is not one. */
function integerFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[-+]?[0-9]{1,15}$/.test(value)) {
    throw new ValidationError(
      `invalid argument ${JSON.stringify(value)} for "${flag}" flag: must be an integer`,
      "InvalidFlag",
    );
  }
  return Number(value);
}
