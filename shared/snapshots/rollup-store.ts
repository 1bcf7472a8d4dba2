/**
 * The per-day reliability rollups as the reports read them (docs/history.md "Rollups"): one port, a DynamoDB
 * (dynamodb-rollups.ts) and an in-memory implementation (memory-small-stores.ts), one contract suite
 * (test/history/rollup-contract.ts). They are written only with an audit message's completion (AuditRunStore's
 * completeMessage), so the port reads.
 */
import type { RollupDay } from "./rollup-items.ts";

export interface RollupStore {
  /** The rollup day items of `days` (UTC, YYYY-MM-DD), of one cluster or of all; expired ones hidden. */
  rollups(days: readonly string[], cluster: string | undefined, now: Date): Promise<RollupDay[]>;
}
