import { ValidationError } from "../../shared/errors.ts";

/**
 * The one RELEASE argument of `status`, `history` and `get manifest`, with Helm's wording
 * (cobra's ExactArgs in helm: `"helm history" requires 1 argument`) on one line.
 */
export function releaseNameArgument(command: string, positionals: string[]): string {
  if (positionals.length === 1) return positionals[0];
  throw new ValidationError(`"helm ${command}" requires 1 argument`);
}

/** `--cluster NAME [--region R]`, the flags of `token` and `kubeconfig` (for defineCommand). */
export const CLUSTER_FLAGS = {
  cluster: { type: "string" },
  region: { type: "string" },
} as const;
