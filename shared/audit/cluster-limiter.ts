/**
 * At most N releases per cluster audited at once (AUDIT_CLUSTER_CONCURRENCY), whatever
 * the messages of a batch are: a cluster's API server sees a bounded load, other
 * clusters proceed. Owned by the worker that creates it (no module state).
 */
export class ClusterLimiter {
  readonly #limit: number;
  readonly #active = new Map<string, number>();
  readonly #waiting = new Map<string, (() => void)[]>();
  /** Highest number in flight for any cluster (tests, bench). */
  maxSeen = 0;

  constructor(limit: number) {
    this.#limit = Math.max(1, limit);
  }

  async run<T>(cluster: string, task: () => Promise<T>): Promise<T> {
    while ((this.#active.get(cluster) ?? 0) >= this.#limit) {
      await new Promise<void>((resolve) => {
        const queue = this.#waiting.get(cluster) ?? [];
        queue.push(resolve);
        this.#waiting.set(cluster, queue);
      });
    }
    const active = (this.#active.get(cluster) ?? 0) + 1;
    this.#active.set(cluster, active);
    this.maxSeen = Math.max(this.maxSeen, active);
    try {
      return await task();
    } finally {
      this.#active.set(cluster, (this.#active.get(cluster) ?? 1) - 1);
      this.#waiting.get(cluster)?.shift()?.();
    }
  }
}
