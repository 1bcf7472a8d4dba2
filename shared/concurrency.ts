/** Bounded concurrency: the one worker pool of shared/ (a sync's objects, a scope report's releases, rollup days). */

/** Runs tasks with at most `limit` in flight. */
export async function pool(tasks: (() => Promise<void>)[], limit: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) await tasks[next++]();
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
}

/**
 * One call in flight per holder: callers that come while it runs share its promise (one AssumeRole for an account's
 * clusters, one DescribeCluster per cluster), and the next caller after it settles starts a new one.
 */
export function sharedInFlight<T>(holder: { inFlight?: Promise<T> }, start: () => Promise<T>): Promise<T> {
  if (holder.inFlight) return holder.inFlight;
  const promise = start();
  holder.inFlight = promise;
  const clear = () => {
    if (holder.inFlight === promise) holder.inFlight = undefined;
  };
  promise.then(clear, clear);
  return promise;
}
