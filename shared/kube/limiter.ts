/**
 * Slots for requests in flight, granted fairly between owners (the statuses
 * sharing one cluster), and never waited for past a deadline.
 *
 * A waiter leaves the queue the moment its signal aborts (the status deadline):
 * a status with reads still queued when its deadline passes settles at once,
 * whatever the concurrency (issue #14 item 1: waiters woken only by a release
 * could hang forever once the in-flight requests had been aborted).
 *
 * Owners are served round-robin: a status with 300 queued reads does not make
 * a 5-read status wait behind all of them.
 */

import { type Clock, systemClock } from "../ports.ts";

interface Waiter {
  grant: () => void;
  cancel: () => void;
}

export class FairLimiter {
  private inFlightNow = 0;
  private highWater = 0;
  /** Insertion order is the round-robin order: the owner served last moves to the end. */
  private readonly queues = new Map<unknown, Waiter[]>();
  protected capacity: number;

  constructor(capacity: number) {
    this.capacity = Math.max(1, Math.floor(capacity));
  }

  get inFlight(): number {
    return this.inFlightNow;
  }

  /** The most slots held at once since creation (or the last `resetHighWater`). */
  get maxInFlight(): number {
    return this.highWater;
  }

  resetHighWater(): void {
    this.highWater = this.inFlightNow;
  }

  get limit(): number {
    return this.capacity;
  }

  get queued(): number {
    let n = 0;
    for (const queue of this.queues.values()) n += queue.length;
    return n;
  }

  /** Resolves true with a slot held, or false (no slot) as soon as `signal` aborts. */
  acquire(owner: unknown, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    if (this.queues.size === 0 && this.inFlightNow < this.capacity) {
      this.take();
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const onAbort = () => {
        const queue = this.queues.get(owner);
        const at = queue?.indexOf(waiter) ?? -1;
        if (queue && at >= 0) {
          queue.splice(at, 1);
          if (queue.length === 0) this.queues.delete(owner);
        }
        resolve(false);
      };
      const waiter: Waiter = {
        grant: () => {
          signal.removeEventListener("abort", onAbort);
          resolve(true);
        },
        cancel: onAbort,
      };
      signal.addEventListener("abort", onAbort, { once: true });
      const queue = this.queues.get(owner);
      if (queue) queue.push(waiter);
      else this.queues.set(owner, [waiter]);
      this.pump();
    });
  }

  release(): void {
    this.inFlightNow = Math.max(0, this.inFlightNow - 1);
    this.pump();
  }

  /** Ends every wait with `false` (the owner of the limiter is closing). */
  cancelAll(): void {
    for (const queue of [...this.queues.values()]) for (const waiter of [...queue]) waiter.cancel();
    this.queues.clear();
  }

  protected pump(): void {
    while (this.inFlightNow < this.capacity && this.queues.size > 0) {
      const [owner, queue] = this.queues.entries().next().value as [unknown, Waiter[]];
      const waiter = queue.shift() as Waiter;
      this.queues.delete(owner);
      if (queue.length > 0) this.queues.set(owner, queue); // to the back of the round
      this.take();
      waiter.grant();
    }
  }

  private take(): void {
    this.inFlightNow++;
    if (this.inFlightNow > this.highWater) this.highWater = this.inFlightNow;
  }
}

export interface ClusterLimitOptions {
  /** The most requests in flight to one cluster from this process. */
  maxInFlight: number;
  /** The limit never drops below this under overload. */
  minInFlight?: number;
  /** A second decrease waits this long after the first, so one burst of 429s halves the limit once. */
  decreaseCooldownMs?: number;
  /** Default: the system clock. */
  clock?: Clock;
}

/**
 * The per-cluster limit shared by every status of the process, adapting to the
 * server like client-go's clients are expected to under API Priority and
 * Fairness: a 429 (or a 503 with Retry-After) halves the limit (at most once
 * per cooldown), every answered request gives back a little (additive
 * increase, about +1 per eighth of the limit's worth of successes), up to the
 * configured maximum. See docs/status.md for why the defaults are safe.
 */
export class ClusterLimit extends FairLimiter {
  readonly max: number;
  private readonly min: number;
  private readonly cooldownMs: number;
  private readonly clock: Clock;
  private current: number;
  private lastDecrease = Number.NEGATIVE_INFINITY;
  decreases = 0;

  constructor(options: ClusterLimitOptions) {
    super(options.maxInFlight);
    this.max = Math.max(1, Math.floor(options.maxInFlight));
    this.min = Math.max(1, Math.min(this.max, Math.floor(options.minInFlight ?? 4)));
    this.cooldownMs = options.decreaseCooldownMs ?? 1000;
    this.clock = options.clock ?? systemClock;
    this.current = this.max;
  }

  /** The server asked us to slow down. */
  overloaded(): void {
    const now = this.clock.now().getTime();
    if (now - this.lastDecrease < this.cooldownMs) return;
    this.lastDecrease = now;
    this.decreases++;
    this.current = Math.max(this.min, this.current / 2);
    this.capacity = Math.floor(this.current);
  }

  /** An answer that was not an overload signal. */
  answered(): void {
    if (this.current >= this.max) return;
    this.current = Math.min(this.max, this.current + 8 / this.current);
    const next = Math.floor(this.current);
    if (next !== this.capacity) {
      this.capacity = next;
      this.pump();
    }
  }
}
