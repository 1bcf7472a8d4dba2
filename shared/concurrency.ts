/** Bounded concurrency: the one worker pool of shared/ (a sync's objects, a scope report's releases, rollup days). */

/** Runs tasks with at most `limit` in flight. */
export async function pool(tasks: (() => Promise<void>)[], limit: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) await tasks[next++]();
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
}
