/** `list [--cluster C] [-n NS | -A] [--status S] [-o table|json|yaml]`: helm list from the store. */
import { ValidationError } from "../../shared/errors.ts";
import { helmListElements, renderHelmList } from "../../shared/format/release-tables.ts";
import type { ReleaseStatus, ReleaseSummary } from "../../shared/release/model.ts";
import { parseOutputFormat, renderStructured } from "../../shared/render/index.ts";
import { listReleases } from "../../shared/usecases/list.ts";
import { cliClusterScope } from "../lib/clusters.ts";
import { defineCommand } from "../lib/define-command.ts";
import { withCliStore } from "../lib/store.ts";

const help = `usage: npm run --silent cli -- list [--cluster C] [-n NAMESPACE | -A] [--status S] [-o table|json|yaml]

Lists the latest revision of each stored release, like helm list (every status
unless --status is given).

flags:
      --cluster string        cluster the releases belong to (default "local")
  -n, --namespace string      namespace (default "default")
  -A, --all-namespaces        list releases across all namespaces
      --status string         only releases whose latest revision has this status
  -o, --output string         table, json or yaml (default "table")
`;

/** Bounds the page loop: 100 pages of 1000 is more releases than any fleet has. */
const MAX_PAGES = 100;

export const run = defineCommand({
  help,
  options: {
    cluster: { type: "string", default: "local" },
    namespace: { type: "string", short: "n" },
    "all-namespaces": { type: "boolean", short: "A" },
    status: { type: "string" },
    output: { type: "string", short: "o" },
  },
  async run({ values }, io) {
    if (values.namespace !== undefined && values["all-namespaces"]) {
      throw new ValidationError("use either -n NAMESPACE or -A, not both");
    }
    const format = parseOutputFormat(values.output);
    const filter = {
      cluster: values.cluster,
      namespace: values["all-namespaces"] ? undefined : (values.namespace ?? "default"),
      status: values.status as ReleaseStatus | undefined,
    };
    const clusters = cliClusterScope(io.env);
    const releases = await withCliStore(io.env, async (store) => {
      const all: ReleaseSummary[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const result = await listReleases({ store, clusters }, { ...filter, limit: 1000, cursor });
        all.push(...result.items);
        cursor = result.cursor;
        if (!cursor) break;
      }
      return all;
    });
    // helm list sorts by name.
    releases.sort((a, b) => a.name.localeCompare(b.name) || a.namespace.localeCompare(b.namespace));
    io.stdout.write(
      format === "table" ? renderHelmList(releases) : renderStructured(helmListElements(releases), format),
    );
    return 0;
  },
});
