import type { Clock } from "./ports.ts";

/**
 * One retry policy for every call the product makes to another service (DynamoDB and SQS batches, chat posts,
 * the Kubernetes API): exponential backoff with jitter, the server's Retry-After honoured, bounded attempts.
 * Callers keep only what is theirs: which failures are retryable, and their budget.
 */

export interface BackoffPolicy {
  /** The wait before the first retry, before jitter. */
  baseMs: number;
  /** The longest wait, before jitter (default: no cap). */
  capMs?: number;
  /** In [0, 1): Math.random by default; tests pin it. */
  random?: () => number;
}

/**
 * The wait before retry number `retry` (1 = the first retry): baseMs doubled per retry, capped, then "equal
 * jitter" (half of it fixed, half random), so clients that failed together do not all come back together.
 */
export function backoffDelay(retry: number, policy: BackoffPolicy): number {
  const exponential = Math.min(policy.capMs ?? Number.POSITIVE_INFINITY, policy.baseMs * 2 ** (retry - 1));
  return exponential * (0.5 + (policy.random ?? Math.random)() / 2);
}

/** Retry-After (RFC 9110) is either delay-seconds or an HTTP date: the wait it asks for, in ms from now. */
export function retryAfterMs(header: string | null | undefined, clock: Clock): number | undefined {
  const trimmed = header?.trim();
  if (!trimmed) return undefined;
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // Every HTTP-date form names a day and a month; Date.parse alone would take "-1" for a year.
  if (!/[a-z]/i.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - clock.now().getTime());
}

/** Resolves after `ms`, or at once when `signal` aborts (never rejects: the caller checks why it woke). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

export interface LeftoverRetry extends BackoffPolicy {
  /** Calls in all, the first included. */
  maxAttempts: number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Bounded retries of a batch call that hands back what it did not process (DynamoDB's unprocessed items, SQS's
 * entries failed on its side): `send` gets what is pending (and the attempt number, 1-based) and returns what is
 * left to retry. At most `maxAttempts` calls, with backoff between them; returns what is still left after the
 * last one (empty when everything went through), for the caller to report in its own terms.
 */
export async function retryLeftovers<T>(
  items: T[],
  send: (pending: T[], attempt: number) => Promise<T[]>,
  policy: LeftoverRetry,
): Promise<T[]> {
  const wait = policy.sleep ?? sleep;
  let pending = items;
  for (let attempt = 1; pending.length > 0 && attempt <= policy.maxAttempts; attempt++) {
    if (attempt > 1) await wait(backoffDelay(attempt - 1, policy));
    pending = await send(pending, attempt);
  }
  return pending;
}
