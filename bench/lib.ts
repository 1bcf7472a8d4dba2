/** Small helpers of the status benchmark: the release, timing, statistics, memory, machine load. */
import { execFile, execFileSync } from "node:child_process";
import { availableParallelism, loadavg } from "node:os";
import { promisify } from "node:util";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { Release } from "../shared/release/model.ts";
import type { StatusReport } from "../shared/status/report.ts";

const run = promisify(execFile);

/**
 * A release of `perKind` each of ServiceAccount, ConfigMap, Service and Deployment,
 * with `perKind` distinct selectors `app=app-<i>`: 4 × perKind GETs plus the related-pods LISTs (one per 32
 * selectors: they differ in one label, so they share one).
 */
export function benchRelease(name: string, namespace: string, perKind: number): Release {
  let manifest = "";
  for (let i = 0; i < perKind; i++) {
    const app = `app-${i}`;
    const labels = (indent: string) =>
      `${indent}app.kubernetes.io/name: ${app}\n${indent}app.kubernetes.io/instance: ${name}`;
    manifest += `---\n# Source: bench/templates/sa.yaml\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: ${app}\n`;
    manifest += `---\n# Source: bench/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${app}\ndata:\n  key: value\n`;
    manifest += `---\n# Source: bench/templates/svc.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: ${app}\nspec:\n  type: ClusterIP\n  ports:\n  - port: 80\n    targetPort: http\n    protocol: TCP\n    name: http\n  selector:\n${labels("    ")}\n`;
    manifest += `---\n# Source: bench/templates/deployment.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${app}\nspec:\n  replicas: 1\n  selector:\n    matchLabels:\n${labels("      ")}\n  template:\n    metadata:\n      labels:\n${labels("        ")}\n    spec:\n      containers:\n      - name: app\n        image: nginx:1.27\n`;
  }
  return {
    name,
    namespace,
    version: 1,
    info: { status: "deployed", last_deployed: "2026-12-02T14:40:15Z", description: "Install complete" },
    chart: { metadata: { name: "bench", version: "0.1.0" } },
    manifest,
    hooks: [],
  };
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function spread(values: readonly number[]): string {
  if (values.length === 0) return "";
  return `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;
}

export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}

/** `gc()` even without --expose-gc (the flag can be set at run time; the function is then found in a new context). */
export function collector(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

export interface MemoryGrowth {
  /** Heap used after the call (garbage included) minus before (after a full GC): what one call allocates at most. */
  heapPeakMb: number;
  /** Heap still used after a full GC while the result is held: what one call keeps (noisy below ~2 MB). */
  heapRetainedMb: number;
  rssMb: number;
}

export async function memoryGrowth<T>(fn: () => Promise<T>): Promise<MemoryGrowth & { value: T }> {
  const gc = collector();
  gc();
  gc();
  const before = process.memoryUsage();
  const result = await fn();
  const after = process.memoryUsage();
  gc();
  gc();
  const retained = process.memoryUsage();
  const mb = (bytes: number) => bytes / 1024 / 1024;
  return {
    value: result,
    heapPeakMb: mb(after.heapUsed - before.heapUsed),
    heapRetainedMb: mb(retained.heapUsed - before.heapUsed),
    rssMb: mb(after.rss - before.rss),
  };
}

/** A bench's bound: after `ms` it says so on stderr and exits 2 (unref'd: a finished bench exits as usual). */
export function startWatchdog(name: string, ms: number): void {
  setTimeout(() => {
    process.stderr.write(`${name}: over ${ms / 60_000} minutes, giving up\n`);
    process.exit(2);
  }, ms).unref();
}

/** Load averages and core count, with `uptime`'s own line when it exists. */
export function machineLoad(): string {
  const [one, five, fifteen] = loadavg().map((l) => l.toFixed(2));
  let uptime = "";
  try {
    uptime = execFileSync("uptime", { encoding: "utf8", timeout: 2000 }).trim();
  } catch {
    // Not every system has it; loadavg() says the same.
  }
  return `${availableParallelism()} cores, load ${one} ${five} ${fifteen}${uptime ? `  (uptime: ${uptime})` : ""}`;
}

/** Discovery and version paths, told apart from resource reads in a request log. */
export function isDiscoveryPath(path: string): boolean {
  return (
    path === "/version" ||
    path === "/api" ||
    path === "/apis" ||
    /^\/api\/v1\/?$/.test(path) ||
    /^\/apis\/[^/]+(\/[^/]+)?\/?$/.test(path) ||
    path.startsWith("/openapi")
  );
}

/**
 * What pure waiting costs each side (no CPU at all): the engine pays a store read and
 * ceil(reads / cap) round trips, helm its process start and one round trip per request
 * (it reads one at a time). The ratio of the floors is the most this setup can show.
 */
export function floors(f: {
  store: number;
  rtt: number;
  engineReads: number;
  /** The per-status cap: reads go out in ceil(reads / cap) waves. */
  perStatus: number;
  helmRequests?: number;
  helmStart?: number;
  engine: number;
  helm?: number;
  /** The simulator thread's CPU during one engine status (ms). */
  simulatorCpu?: number;
}): string[] {
  const waves = Math.ceil(f.engineReads / f.perStatus);
  const engineFloor = f.store + waves * f.rtt;
  const lines = [
    `floors (waiting only): engine ${engineFloor.toFixed(0)} ms = store ${f.store.toFixed(0)} + ${waves} × RTT ${f.rtt.toFixed(0)}; measured − floor = ${(f.engine - engineFloor).toFixed(0)} ms of CPU and queueing`,
  ];
  if (f.simulatorCpu !== undefined) {
    // Most of the simulator's CPU for a wave overlaps the latency (it answers on arrival); how much of it is on
    // the critical path is what the canned-answers section measures (status-canned.ts), not this subtraction.
    lines.push(
      `                       the simulator's own CPU for the wave: ${f.simulatorCpu.toFixed(0)} ms on its thread, mostly within the latency (see "canned answers" below)`,
    );
  }
  if (f.helmRequests !== undefined && f.helmStart !== undefined && f.helm !== undefined) {
    const helmFloor = f.helmStart + f.helmRequests * f.rtt;
    lines.push(
      `                       helm ${helmFloor.toFixed(0)} ms = start ${f.helmStart.toFixed(0)} + ${f.helmRequests} × RTT ${f.rtt.toFixed(0)}; measured − floor = ${(f.helm - helmFloor).toFixed(0)} ms`,
      `                       best ratio this setup allows: ${(helmFloor / engineFloor).toFixed(1)}x`,
    );
  }
  return lines;
}

export function memoryLine(
  label: string,
  growth: MemoryGrowth & { value: { text: string; report: StatusReport } },
): string {
  const retained =
    growth.heapRetainedMb < 0.5 ? "< 0.5 MB retained (GC noise)" : `+${growth.heapRetainedMb.toFixed(1)} MB retained`;
  const size = `report ${(JSON.stringify(growth.value.report).length / 1024).toFixed(0)} KB as JSON, text ${(growth.value.text.length / 1024).toFixed(0)} KB`;
  return `  ${label.padEnd(26)}heap +${growth.heapPeakMb.toFixed(1)} MB peak, ${retained}, RSS +${growth.rssMb.toFixed(1)} MB; ${size}`;
}

/** `helm version`: helm's process start and config loading, no cluster access. */
export async function timedHelmVersion(helmPath: string): Promise<{ ms: number; version: string }> {
  const { ms, value } = await timed(() =>
    run(helmPath, ["version", "--short"], { timeout: 30_000, env: { PATH: process.env.PATH ?? "" } }),
  );
  return { ms, version: value.stdout.trim().replace(/\+.*$/, "") };
}
