/**
 * Bench sections under load: many statuses on one cluster in one process (what
 * an audit worker does), with and without a 429 storm; and the local API (the
 * Lambda handler behind the local HTTP server) under 200 concurrent clients.
 */
import { request } from "node:http";
import { apiDepsFromEnv } from "../functions/api/deps.ts";
import { createApiHandler } from "../functions/api/handler.ts";
import { startLocalServer } from "../local/server.ts";
import type { KubeReader } from "../shared/kube/reader.ts";
import { silentLogger } from "../shared/ports.ts";
import type { StoreConfig } from "../shared/store/config.ts";
import { releaseStatus } from "../shared/usecases/status.ts";
import { benchFunctionEnv } from "./local-stack.ts";
import type { BenchContext } from "./status-cold-scale.ts";

export interface ThroughputFigures {
  lines: string[];
  perSecond: number;
  stormPerSecond: number;
  stormErrors: number;
  maxInFlight: number;
  simMaxInFlight: number;
  limit: number;
}

/** `total` statuses of one release, `parallel` at a time, on one reader. */
async function statusesPerSecond(
  ctx: BenchContext,
  kube: KubeReader,
  release: { name: string; namespace: string },
  total: number,
  parallel: number,
): Promise<{ perSecond: number; errors: number; ms: number }> {
  let next = 0;
  let errors = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < total) {
      next++;
      const report = await releaseStatus(
        { store: ctx.store, kube, logger: silentLogger },
        { cluster: ctx.clusterName, ...release },
      );
      errors += report.missing.filter((entry) => entry.reason !== "not found").length;
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  const ms = performance.now() - started;
  return { perSecond: (total * 1000) / ms, errors, ms };
}

export async function manyStatuses(
  ctx: BenchContext,
  kube: KubeReader,
  release: { name: string; namespace: string },
): Promise<ThroughputFigures> {
  const TOTAL = 48;
  const PARALLEL = 16;
  await ctx.cluster.resetStats();
  const before = kube.stats(ctx.clusterName);
  const calm = await statusesPerSecond(ctx, kube, release, TOTAL, PARALLEL);
  const simCalm = await ctx.cluster.stats();
  const calmStats = kube.stats(ctx.clusterName);

  // A 429 storm (APF rejecting half the requests, Retry-After: 1) for the first 1.5 s.
  await ctx.cluster.faults.set({ latencyMs: 20, errorRate: 0.5, errorStatus: 429, retryAfterSeconds: 1 });
  const calmAgain = setTimeout(() => void ctx.cluster.faults.set({ latencyMs: 20, errorRate: 0 }), 1500);
  const decreasesBefore = kube.stats(ctx.clusterName).decreases;
  let lowest = kube.stats(ctx.clusterName).limit;
  const sampler = setInterval(() => {
    lowest = Math.min(lowest, kube.stats(ctx.clusterName).limit);
  }, 20);
  let storm: Awaited<ReturnType<typeof statusesPerSecond>>;
  try {
    storm = await statusesPerSecond(ctx, kube, release, TOTAL, PARALLEL);
  } finally {
    clearTimeout(calmAgain);
    clearInterval(sampler);
    await ctx.cluster.faults.set({ latencyMs: 20, errorRate: 0 });
  }
  const after = kube.stats(ctx.clusterName);
  return {
    perSecond: calm.perSecond,
    stormPerSecond: storm.perSecond,
    stormErrors: storm.errors,
    maxInFlight: calmStats.maxInFlight,
    simMaxInFlight: simCalm.maxInFlight,
    limit: before.limit,
    lines: [
      `many statuses on one cluster, one process (an audit worker): ${TOTAL} statuses of the 40-resource release, ${PARALLEL} at a time`,
      `  calm                        ${calm.perSecond.toFixed(1)} statuses/s (${calm.ms.toFixed(0)} ms), errors ${calm.errors}; in flight on the cluster: engine max ${calmStats.maxInFlight} of limit ${before.limit}, simulator saw ${simCalm.maxInFlight}; sockets opened ${after.socketsOpened - before.socketsOpened}`,
      `  429 storm (50%, 1.5 s)      ${storm.perSecond.toFixed(1)} statuses/s (${storm.ms.toFixed(0)} ms), errors ${storm.errors}; limit lowered ${after.decreases - decreasesBefore}x (lowest ${lowest}), back to ${after.limit}`,
    ],
  };
}

export interface ApiLoadFigures {
  lines: string[];
  rssBeforeMb: number;
  rssAfterMb: number;
  fiveHundreds: number;
}

/**
 * The API handler behind the local HTTP server, in this process, with its own
 * KubeReader (as a warm Lambda would have): 200 clients loop on the status
 * route for `seconds`; RSS before and after, sockets opened to the API server.
 */
export async function apiUnderLoad(
  ctx: BenchContext,
  store: StoreConfig,
  release: { name: string; namespace: string },
  seconds: number,
): Promise<ApiLoadFigures> {
  const env = benchFunctionEnv(store, ctx.sim);
  const saved = { ...process.env };
  // The SDK reads its keys, and Powertools its log level and metrics switch, from process.env itself.
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: env.AWS_ACCESS_KEY_ID,
    AWS_SECRET_ACCESS_KEY: env.AWS_SECRET_ACCESS_KEY,
    POWERTOOLS_LOG_LEVEL: env.POWERTOOLS_LOG_LEVEL,
    POWERTOOLS_METRICS_DISABLED: env.POWERTOOLS_METRICS_DISABLED,
  });
  // Powertools' own logger and metrics, silenced (POWERTOOLS_LOG_LEVEL, POWERTOOLS_METRICS_DISABLED above).
  const deps = apiDepsFromEnv(env);
  const server = await startLocalServer({ handler: createApiHandler(deps), port: 0 });
  const path = `/clusters/${ctx.clusterName}/namespaces/${release.namespace}/releases/${release.name}/status?output=table`;
  const url = new URL(path, server.url);
  const counts = { ok: 0, fiveHundreds: 0, other: 0 };
  const latencies: number[] = [];
  try {
    const get = () =>
      new Promise<number>((resolve) => {
        const req = request(url, { agent: false }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        });
        req.on("error", () => resolve(0));
        req.end();
      });
    await get(); // warm: connector, pools
    globalThis.gc?.();
    const rssBefore = process.memoryUsage().rss;
    const until = performance.now() + seconds * 1000;
    const client = async () => {
      while (performance.now() < until) {
        const started = performance.now();
        const status = await get();
        latencies.push(performance.now() - started);
        if (status === 200) counts.ok++;
        else if (status >= 500 || status === 0) counts.fiveHundreds++;
        else counts.other++;
      }
    };
    await Promise.all(Array.from({ length: 200 }, client));
    const rssAfter = process.memoryUsage().rss;
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.floor(latencies.length * 0.99)] ?? 0;
    const stats = deps.kube.stats(ctx.clusterName);
    return {
      rssBeforeMb: rssBefore / 2 ** 20,
      rssAfterMb: rssAfter / 2 ** 20,
      fiveHundreds: counts.fiveHundreds,
      lines: [
        `local API, 200 concurrent clients for ${seconds} s on the status route (handler + local server + KubeReader in this process)`,
        `  ${counts.ok} answers 200, ${counts.fiveHundreds} 5xx/failed, ${counts.other} other; p99 ${p99.toFixed(0)} ms; RSS ${(rssBefore / 2 ** 20).toFixed(0)} -> ${(rssAfter / 2 ** 20).toFixed(0)} MB (the process also holds the simulator worker); sockets to the API server: ${stats.socketsOpened} (per-cluster limit ${stats.limit}, max in flight ${stats.maxInFlight})`,
      ],
    };
  } finally {
    await server.close();
    await deps.kube.close();
    process.env = saved;
  }
}
