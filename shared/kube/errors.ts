import { DomainError } from "../errors.ts";

/**
 * Cluster-level failures of a status read use the cluster area's errors
 * (shared/clusters/errors.ts: ClusterUnreachableError, ClusterAccessDeniedError).
 * Per-resource failures (404, 403, an unknown kind, a 500 after retries) are
 * never thrown: they become entries of the report, so one bad resource cannot
 * hide the rest. This one only carries "the deadline passed" out of discovery.
 */
export class KubeRequestError extends DomainError {
  readonly kind: "unavailable" | "timeout";
  readonly code = "KubeRequestFailed";
  /** Set when the overall deadline (not the per-request timeout) stopped the request. */
  readonly deadline: boolean;
  constructor(message: string, options?: { cause?: unknown; deadline?: boolean }) {
    super(message, options);
    this.deadline = options?.deadline ?? false;
    this.kind = this.deadline ? "timeout" : "unavailable";
  }
}
