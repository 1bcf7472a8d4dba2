/**
 * Who posts a snapshot's change notification (shared/audit/change-events.ts): a claim per snapshot, so a retried
 * or racing worker does not post twice. One port, a DynamoDB (on the snapshot's summary item:
 * dynamodb-small-stores.ts) and an in-memory implementation (memory-small-stores.ts), one contract suite
 * (test/history/small-stores-contract.ts).
 */

export interface NotificationClaims {
  /**
   * Claims the right to post the change notification of a snapshot: true for the first caller,
   * and again after a failed post or a claim older than `staleMs` (its poster died).
   */
  claimNotification(id: string, now: Date, staleMs?: number): Promise<boolean>;
  finishNotification(id: string, outcome: "sent" | "failed", now: Date): Promise<void>;
}

/** How old a claim whose post never finished must be before another worker may take it over. */
export const STALE_CLAIM_MS = 300_000;
