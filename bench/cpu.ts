/**
 * CPU accounting for the audit bench (Linux /proc; elsewhere the figures read 0): seconds of CPU a process
 * used, and the whole machine's busy time, so a rate can be put next to what each engine spent on it.
 */
import { readFileSync } from "node:fs";
import { cpus } from "node:os";

/** Clock ticks per second of /proc's counters (USER_HZ, 100 on Linux). */
const TICKS = 100;

/** User + system CPU seconds of one process (all its threads), 0 when unreadable. */
export function processCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // After the comm field: state is fields[0], utime fields[11], stime fields[12].
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return 0;
  }
}

/** Busy CPU seconds of the whole machine (every core), 0 when unreadable. */
export function machineBusySeconds(): number {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n")[0];
    const [user, nice, system, _idle, _iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    return (user + nice + system + irq + softirq + steal) / TICKS;
  } catch {
    return 0;
  }
}

export const CORES = cpus().length;

type Counter = () => number | Promise<number>;

const readAll = async (counters: Record<string, Counter>) =>
  Object.fromEntries(await Promise.all(Object.entries(counters).map(async ([k, f]) => [k, await f()] as const)));

/** Reads CPU counters (seconds) now; `since()` answers the cores each used over the elapsed wall time. */
export async function cpuMeter(counters: Record<string, Counter>) {
  const start = Date.now();
  const before = await readAll(counters);
  return {
    async since(): Promise<Record<string, number>> {
      const after = await readAll(counters);
      const seconds = (Date.now() - start) / 1000;
      return Object.fromEntries(Object.keys(counters).map((k) => [k, (after[k] - before[k]) / seconds]));
    },
  };
}

export function formatCores(usage: Record<string, number>): string {
  return Object.entries(usage)
    .map(([name, cores]) => `${name} ${cores.toFixed(2)}`)
    .join(", ");
}
