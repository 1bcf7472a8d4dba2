/**
 * `get manifest RELEASE -n NS [--revision N] [--cluster C]`: the stored manifest, byte for byte except Secret
 * values. `helm get manifest` prints them, but this output lands in CI logs and chat pastes, and the product never
 * prints a Secret value anywhere (the API's manifest route redacts the same way).
 */

import { ValidationError } from "../../shared/errors.ts";
import { revisionOrLatest } from "../../shared/release/validation.ts";
import { getManifest } from "../../shared/usecases/manifest.ts";
import { releaseNameArgument, STORED_RELEASE_FLAGS } from "../lib/args.ts";
import { cliClusterScope } from "../lib/clusters.ts";
import { defineCommand } from "../lib/define-command.ts";
import type { CliIO } from "../lib/run.ts";
import { withCliStore } from "../lib/store.ts";

const help = `usage: npm run --silent cli -- get manifest RELEASE [-n NAMESPACE] [--revision N] [--cluster C]

Prints the manifest of a stored revision (the latest by default) as stored, with the values
of Secret documents replaced by <redacted> (other documents are printed byte for byte).

flags:
      --cluster string     cluster the release belongs to (default "local")
  -n, --namespace string   namespace of the release (default "default")
      --revision int       revision to show (0 or less, or none: the latest)
`;

export async function run(args: string[], io: CliIO): Promise<number> {
  const [what, ...rest] = args;
  if (what === "--help" || what === "-h") {
    io.stdout.write(help);
    return 0;
  }
  if (what !== "manifest") {
    throw new ValidationError(
      what === undefined
        ? "get needs a subcommand: get manifest RELEASE"
        : `unknown get subcommand ${JSON.stringify(what)}: only "manifest" is supported`,
    );
  }
  return getManifestCommand(rest, io);
}

const getManifestCommand = defineCommand({
  help,
  options: {
    ...STORED_RELEASE_FLAGS,
    revision: { type: "string", int: true },
  },
  positionals: true,
  async run({ values, positionals }, io) {
    const name = releaseNameArgument("get manifest", positionals);
    const revision = revisionOrLatest(values.revision);
    const key = { cluster: values.cluster, namespace: values.namespace, name };
    const clusters = cliClusterScope(io.env);
    // Secret values are redacted by the use case (helm prints them; this product never does).
    const { manifest } = await withCliStore(io.env, (store) => getManifest({ store, clusters }, key, revision));
    // helm get manifest prints it with Println: one more newline after the stored text.
    await new Promise<void>((resolve, reject) =>
      io.stdout.write(`${manifest}\n`, (error) => (error ? reject(error) : resolve())),
    );
    return 0;
  },
});

// For shell completion (bin/lib/completion.ts): `get` has one subcommand.
run.spec = { options: {}, subcommands: { manifest: getManifestCommand.spec! } };
