/**
 * The order `AttributionStore.due` hands pending attributions out in, the same in every implementation: earliest
 * due first, then oldest enqueued, then by release and key (so a limit cuts the same place in memory and in
 * DynamoDB, where this string is the queue index's sort key). A subject backing off goes behind fresh ones, so a
 * cluster's first sync of 10,000 revisions cannot starve a write that is due.
 */
import type { Attribution } from "./attribution.ts";

/** DynamoDB's limit on an index sort key is 1,024 bytes; the tail only breaks ties. */
const MAX_SORT_KEY_CHARS = 600;

const instant = (text: string | undefined, fallback: string): string => {
  const ms = Date.parse(text ?? fallback);
  return new Date(Number.isFinite(ms) ? ms : Date.parse(fallback)).toISOString();
};

/** When a pending attribution is due, normalised to `toISOString` so strings compare as times. */
export function dueAt(attribution: Attribution): string {
  return instant(attribution.nextAttemptAt, attribution.enqueuedAt);
}

export function dueSortKey(attribution: Attribution): string {
  const { subject } = attribution;
  return [
    dueAt(attribution),
    instant(attribution.enqueuedAt, attribution.enqueuedAt),
    subject.namespace,
    subject.release,
    attribution.key,
  ]
    .join("#")
    .slice(0, MAX_SORT_KEY_CHARS);
}

/** The upper bound of the sort keys due at `now` ('$' sorts right after the '#' that follows the time). */
export function dueUpperBound(now: Date): string {
  return `${now.toISOString()}$`;
}
