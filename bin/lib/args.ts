import { parseArgs } from "node:util";
import { ValidationError } from "../../shared/errors.ts";

/**
 * The one RELEASE argument of `status`, `history` and `get manifest`, with
 * Helm's wording ("requires exactly 1 argument") on one line.
 */
export function releaseNameArgument(command: string, positionals: string[]): string {
  if (positionals.length === 1) return positionals[0];
  throw new ValidationError(
    `"${command}" requires exactly 1 argument (the release name), got ${positionals.length}: ${command} RELEASE -n NAMESPACE`,
  );
}

/** `--cluster NAME [--region R] [-h]`, the flags of `token` and `kubeconfig`; `help` asks for the usage text. */
export function parseClusterFlags(args: string[]): { cluster?: string; region?: string; help?: boolean } {
  const { values } = parseArgs({
    args,
    options: {
      cluster: { type: "string" },
      region: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
    allowPositionals: false,
  });
  return values;
}
