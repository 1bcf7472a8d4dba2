/**
 * Bench sections: a cold status (new connector and KubeReader, modules already
 * loaded) and the engine's time and CPU per read as the release grows.
 */
import type { WorkerSimCluster, WorkerSimulatedEks } from "../local/sim/worker.ts";
import type { ClusterEntry } from "../shared/clusters/connector.ts";
import { createEksConnector } from "../shared/eks/connector.ts";
import { createKubeReader } from "../shared/kube/reader.ts";
import { silentLogger } from "../shared/ports.ts";
import type { Release } from "../shared/release/model.ts";
import { renderStatusText } from "../shared/render/status/text.ts";
import type { ReleaseStore } from "../shared/store/release-store.ts";
import { releaseStatus } from "../shared/usecases/status.ts";
import { collector, isDiscoveryPath, median, spread, timed } from "./lib.ts";

export interface BenchContext {
  sim: WorkerSimulatedEks;
  cluster: WorkerSimCluster;
  clusterName: string;
  store: ReleaseStore;
  /** One store read + one API round trip, measured by the caller (ms). */
  limitMs: number;
}

export interface ColdFigures {
  lines: string[];
  engineOverLimit: number;
  discovery: number;
  withFactsOverLimit: number;
}

const COLD_RUNS = 5;

/**
 * Cold: everything a new Lambda instance does after its modules are loaded — a
 * new EKS connector (DescribeCluster, token signing) and a new KubeReader (no
 * pool, no discovery), then one status. Also with the registry carrying
 * endpoint + certificateAuthority (no DescribeCluster).
 */
export async function coldStatus(
  ctx: BenchContext,
  release: { name: string; namespace: string },
): Promise<ColdFigures> {
  const credentials = ctx.sim.credentials;
  const plain = ctx.sim.registryEntries();
  const probe = createEksConnector({ registry: plain, credentials: async () => credentials });
  const facts = await probe.describe(ctx.clusterName);
  const withFacts: ClusterEntry[] = plain.map((entry) =>
    entry.name === ctx.clusterName ? { ...entry, endpoint: facts.endpoint, certificateAuthority: facts.caData } : entry,
  );
  const once = async (registry: ClusterEntry[]) => {
    const connector = createEksConnector({ registry, credentials: async () => credentials });
    const kube = createKubeReader({ connector });
    await ctx.cluster.resetStats();
    try {
      const { ms, value } = await timed(() =>
        releaseStatus({ store: ctx.store, kube, logger: silentLogger }, { cluster: ctx.clusterName, ...release }),
      );
      renderStatusText(value);
      const stats = await ctx.cluster.stats();
      return {
        ms,
        discovery: stats.log.filter((entry) => isDiscoveryPath(entry.path)).length,
        complete: value.complete,
      };
    } finally {
      await kube.close();
    }
  };
  const describeRuns: { ms: number; discovery: number }[] = [];
  const factRuns: { ms: number; discovery: number }[] = [];
  for (let i = 0; i < COLD_RUNS; i++) {
    describeRuns.push(await once(plain));
    factRuns.push(await once(withFacts));
  }
  const cold = median(describeRuns.map((run) => run.ms));
  const coldFacts = median(factRuns.map((run) => run.ms));
  const discovery = Math.max(...describeRuns.map((run) => run.discovery), ...factRuns.map((run) => run.discovery));
  return {
    engineOverLimit: cold / ctx.limitMs,
    withFactsOverLimit: coldFacts / ctx.limitMs,
    discovery,
    lines: [
      `cold status (new EKS connector + new KubeReader, modules loaded; DescribeCluster + token + TLS + one wave), median (min–max) of ${COLD_RUNS}`,
      `  registry name only          ${fmt(cold)}  (${spread(describeRuns.map((run) => run.ms))})  discovery requests ${Math.max(...describeRuns.map((run) => run.discovery))}`,
      `  registry endpoint + CA      ${fmt(coldFacts)}  (${spread(factRuns.map((run) => run.ms))})  discovery requests ${Math.max(...factRuns.map((run) => run.discovery))} (no DescribeCluster)`,
    ],
  };
}

export interface ScaleFigures {
  lines: string[];
  cpuPerRead: Record<number, number>;
  /** CPU per additional read, from the smallest to the largest N (the fixed per-status cost taken out). */
  marginal: number;
}

/** A release of `count` ConfigMaps (one GET each, no related pods). */
export function configMapRelease(name: string, namespace: string, count: number): Release {
  let manifest = "";
  for (let i = 0; i < count; i++) {
    manifest += `---\n# Source: scale/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${i}\ndata:\n  key: value-${i}\n`;
  }
  return {
    name,
    namespace,
    version: 1,
    info: { status: "deployed", last_deployed: "2026-12-02T14:40:15Z", description: "Install complete" },
    chart: { metadata: { name: "scale", version: "0.1.0" } },
    manifest,
    hooks: [],
  };
}

/** Sizes below this many reads get proportionally more runs (N=10: 16 runs). */
const SMALL_STATUS_READS = 160;

/** N reads at +latency: wall time and the engine thread's CPU per read, warm reader, default caps. */
export async function scaling(
  ctx: BenchContext,
  status: (name: string, namespace: string) => Promise<unknown>,
  sizes: readonly number[],
  runs = 3,
): Promise<ScaleFigures> {
  const lines = [
    `scale: N ConfigMaps (N reads), warm, default per-status cap, median of ${runs} runs (of ${SMALL_STATUS_READS} / N below N=${SMALL_STATUS_READS}, after a GC)`,
  ];
  const gc = collector();
  const cpuPerRead: Record<number, number> = {};
  for (const n of sizes) {
    const release = configMapRelease(`scale-${n}`, `scale-${n}`, n);
    await ctx.cluster.materialize(release.manifest ?? "", { namespace: release.namespace });
    await ctx.store.putRevision(ctx.clusterName, release);
    // Warm (manifest cache, JIT), then a full GC, so a small status is not charged with collecting what the
    // cold statuses before it left behind. A small status is short: more runs, so the median is not one GC's.
    for (let i = 0; i < 3; i++) await status(release.name, release.namespace);
    gc();
    const times: number[] = [];
    const cpus: number[] = [];
    const count = Math.max(runs, Math.ceil(SMALL_STATUS_READS / n));
    for (let i = 0; i < count; i++) {
      const cpu = process.threadCpuUsage();
      const { ms } = await timed(() => status(release.name, release.namespace));
      const used = process.threadCpuUsage(cpu);
      times.push(ms);
      cpus.push((used.user + used.system) / 1000);
    }
    const cpu = median(cpus);
    cpuPerRead[n] = cpu / n;
    lines.push(
      `  N=${String(n).padEnd(4)} ${fmt(median(times))}  (${spread(times)})  engine CPU ${cpu.toFixed(0)} ms = ${(cpu / n).toFixed(3)} ms per read`,
    );
  }
  const [first, last] = [sizes[0], sizes[sizes.length - 1]];
  const marginal = (cpuPerRead[last] * last - cpuPerRead[first] * first) / (last - first);
  lines.push(
    `  marginal CPU per read (N=${first} -> ${last}): ${marginal.toFixed(3)} ms; the rest of a small status is its fixed cost (store read, report, rendering: ${(cpuPerRead[first] * first - marginal * first).toFixed(1)} ms)`,
  );
  return { lines, cpuPerRead, marginal };
}

function fmt(ms: number): string {
  return `${ms.toFixed(0).padStart(6)} ms`;
}
