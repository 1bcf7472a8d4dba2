/** `import [FILE|-] [--cluster C]`: store Helm release Secrets/ConfigMaps (JSON or YAML) read from a file or stdin. */
import { readFile } from "node:fs/promises";
import { ValidationError } from "../../shared/errors.ts";
import { parseImportDocument } from "../../shared/release/import-document.ts";
import { parseOutputFormat, renderStructured } from "../../shared/render/index.ts";
import { importReleases } from "../../shared/usecases/import.ts";
import { cliClusterScope } from "../lib/clusters.ts";
import { defineCommand } from "../lib/define-command.ts";
import { renderImportSummary } from "../lib/import-summary.ts";
import type { CliIO } from "../lib/run.ts";
import { withCliStore } from "../lib/store.ts";

const help = `usage: npm run --silent cli -- import [FILE|-] [--cluster C] [-o table|json|yaml]

Imports Helm release revisions from Helm's own storage objects: one Secret or
ConfigMap, or a List of them, e.g.
  kubectl get secrets -A -l owner=helm -o json | npm run --silent cli -- import - --cluster prod
Non-Helm objects are skipped; a broken object is reported and does not stop the
others. Exits 1 when any object failed.

flags:
      --cluster string   cluster the releases belong to (default "local")
  -o, --output string    summary as table, json or yaml (default "table")
`;

export const run = defineCommand({
  help,
  options: {
    cluster: { type: "string", default: "local" },
    output: { type: "string", short: "o" },
  },
  positionals: true,
  async run({ values, positionals }, io) {
    if (positionals.length > 1) throw new ValidationError("import takes one FILE (or - for stdin)");
    const format = parseOutputFormat(values.output);
    const source = positionals[0] ?? "-";
    if (source === "-" && io.stdin.isTTY) {
      throw new ValidationError(
        "no input: give a FILE, or pipe JSON into stdin (e.g. kubectl get secrets -A -l owner=helm -o json | ... import -)",
      );
    }
    const where = source === "-" ? "stdin" : JSON.stringify(source);
    const document = parseImportDocument(await readSource(source, io), { syntax: "auto", where });
    const progress = io.stderr.isTTY
      ? ({ done, total }: { done: number; total: number }) => io.stderr.write(`\rimporting ${done}/${total}`)
      : undefined;
    const clusters = cliClusterScope(io.env);
    const summary = await withCliStore(io.env, (store) =>
      importReleases({ store, clusters }, { cluster: values.cluster, document, onProgress: progress }),
    );
    if (progress) io.stderr.write("\n");
    io.stdout.write(format === "table" ? renderImportSummary(summary) : renderStructured(summary, format));
    return summary.failed > 0 ? 1 : 0;
  },
});

/** Bytes, not text: the shared parser refuses invalid UTF-8 instead of decoding it to U+FFFD. */
async function readSource(source: string, io: CliIO): Promise<Buffer> {
  if (source === "-") {
    const chunks: Buffer[] = [];
    for await (const chunk of io.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
    return Buffer.concat(chunks);
  }
  try {
    return await readFile(source);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : (error as Error).message;
    throw new ValidationError(`cannot read ${JSON.stringify(source)}: ${reason}`, "UnreadableInput");
  }
}
