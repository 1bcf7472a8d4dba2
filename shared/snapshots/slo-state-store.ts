/**
 * The SLO burn state last notified per release (shared/audit/slo-watch.ts), swapped conditionally so of racing or
 * redelivered audits exactly one notifies. One port, a DynamoDB (dynamodb-small-stores.ts) and an in-memory
 * implementation (memory-small-stores.ts), one contract suite (test/history/small-stores-contract.ts).
 */
import type { ReleaseKey } from "../release/model.ts";
import type { WriteOutcome } from "./snapshot-store.ts";

export interface SloStateStore {
  /** The SLO burn state last notified for a release; undefined when none (or expired). */
  sloState(release: ReleaseKey, now: Date): Promise<string | undefined>;
  /**
   * Moves a release's SLO burn state from `from` (undefined: none stored) to `to`, only if it is still `from`:
   * `ok` for the one caller that moved it (it notifies), `conflict` for the others.
   */
  swapSloState(
    release: ReleaseKey,
    from: string | undefined,
    to: string,
    at: Date,
    expiresAt: number,
  ): Promise<WriteOutcome>;
}
