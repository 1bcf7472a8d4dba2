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

/** A live cluster, through EKS (`--cluster`, `--region`) or a kubeconfig (`--kubeconfig`, `--context`): status and sync. */
export const LIVE_CLUSTER_FLAGS = {
  ...CLUSTER_FLAGS,
  kubeconfig: { type: "string" },
  context: { type: "string" },
} as const;

/** `--cluster` and `-n/--namespace` of a release in the store, as get, history and snapshots take them (for defineCommand). */
export const STORED_RELEASE_FLAGS = {
  cluster: { type: "string", default: "local" },
  namespace: { type: "string", short: "n", default: "default" },
} as const;

/** helm list's own flags (beside -n and -o), for `list` and `remote list` (for defineCommand). */
export const HELM_LIST_FLAGS = {
  "all-namespaces": { type: "boolean", short: "A" },
  date: { type: "boolean", short: "d" },
  deployed: { type: "boolean" },
  failed: { type: "boolean" },
  pending: { type: "boolean" },
  superseded: { type: "boolean" },
  uninstalled: { type: "boolean" },
  uninstalling: { type: "boolean" },
  status: { type: "string" },
  filter: { type: "string", short: "f" },
  selector: { type: "string", short: "l" },
  max: { type: "string", short: "m", int: true },
  offset: { type: "string", int: true },
  reverse: { type: "boolean", short: "r" },
  short: { type: "boolean", short: "q" },
  "time-format": { type: "string" },
} as const;
