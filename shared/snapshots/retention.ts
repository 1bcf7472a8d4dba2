/**
 * How long the history is kept (SNAPSHOT_RETENTION_DAYS), defined once: the oldest instant a report or `--at` can
 * still be answered for, and the expiry (DynamoDB TTL, epoch seconds) an item written at some time carries.
 */
/** SNAPSHOT_RETENTION_DAYS when unset. */
export const DEFAULT_RETENTION_DAYS = 90;
export const DAY_MS = 86_400_000;
const DAY_SECONDS = 86_400;

/** The oldest instant the history still holds at `now`. */
export function retainedSince(now: Date, retentionDays: number): Date {
  return new Date(now.getTime() - retentionDays * DAY_MS);
}

/** Whether an item (its `expiresAt` in epoch seconds) is past its expiry at `now`: DynamoDB's TTL deletes late. */
export function expired(item: { expiresAt: number }, now: Date): boolean {
  return item.expiresAt * 1000 <= now.getTime();
}

/** The expiry (epoch seconds) of an item written at `atMs` (epoch ms). */
export function expiresAtFor(atMs: number, retentionDays: number): number {
  return Math.floor(atMs / 1000) + retentionDays * DAY_SECONDS;
}
