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

/** `--cluster NAME [--region R]`, the flags of `token` and `kubeconfig` (for defineCommand). */
export const CLUSTER_FLAGS = {
  cluster: { type: "string" },
  region: { type: "string" },
} as const;
