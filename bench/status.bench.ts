/**
 * `npm run bench`: how fast is a status read, against the simulated EKS with
 * 20 ms added to every API request (a far-away API server), for a 40-resource
 * release (10 each of ServiceAccount, ConfigMap, Service, Deployment; 10
 * distinct selectors, so 50 reads per status)?
 *
 *   engine      this engine, warm (discovery cached, connections open), concurrency 16
 *   serial      the same engine at concurrency 1
 *   helm        the real helm v4 `helm status` on the same cluster state (its discovery cache warm too)
 *   limit       one release-store read + one API round trip: no status can be faster
 *
 * Prints medians of a few runs and the ratios from this one run, plus the
 * simulator's highest in-flight count and request totals. Nothing is asserted.
 */
import { type SimulatedEks, startSimulatedEks } from "../local/sim/index.ts";
import { closeKubeConnections, requesterFor } from "../shared/kube/http.ts";
import { silentLogger } from "../shared/ports.ts";
import { encodeHelmSecret } from "../shared/release/helm-codec.ts";
import type { Release } from "../shared/release/model.ts";
import { MemoryReleaseStore } from "../shared/store/memory-store.ts";
import { releaseStatus } from "../shared/usecases/status.ts";
import { helmBinary, helmRunner } from "../test/status/helm-oracle.ts";
import { simConnector } from "../test/status/sim-connector.ts";

const LATENCY_MS = 20;
const PER_KIND = 10;
const RUNS = 5;
const CLUSTER = "bench";
const NAMESPACE = "bench";

function manifestOf(count: number): string {
  let out = "";
  for (let i = 0; i < count; i++) {
    const name = `app-${i}`;
    const labels = `      app.kubernetes.io/name: ${name}\n      app.kubernetes.io/instance: bench`;
    out += `---\n# Source: bench/templates/sa.yaml\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: ${name}\n`;
    out += `---\n# Source: bench/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  key: value\n`;
    out += `---\n# Source: bench/templates/svc.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\nspec:\n  type: ClusterIP\n  ports:\n  - port: 80\n    targetPort: http\n    protocol: TCP\n    name: http\n  selector:\n${labels.replace(/^ {6}/gm, "    ")}\n`;
    out += `---\n# Source: bench/templates/deployment.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\nspec:\n  replicas: 1\n  selector:\n    matchLabels:\n${labels.replace(/^ {6}/gm, "      ")}\n  template:\n    metadata:\n      labels:\n${labels.replace(/^ {6}/gm, "        ")}\n    spec:\n      containers:\n      - name: app\n        image: nginx:1.27\n`;
  }
  return out;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function time<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}

async function main(): Promise<void> {
  const sim: SimulatedEks = await startSimulatedEks({ clusters: [{ name: CLUSTER }], seed: 1 });
  try {
    const cluster = sim.cluster(CLUSTER);
    const manifest = manifestOf(PER_KIND);
    const release: Release = {
      name: "bench",
      namespace: NAMESPACE,
      version: 1,
      info: { status: "deployed", last_deployed: "2026-12-02T14:40:15Z", description: "Install complete" },
      chart: { metadata: { name: "bench", version: "0.1.0" } },
      manifest,
      hooks: [],
    };
    cluster.materialize(manifest, { namespace: NAMESPACE });
    cluster.apply([encodeHelmSecret(release)]);
    const store = new MemoryReleaseStore();
    await store.putRevision(CLUSTER, release);
    const connector = simConnector(sim);
    const deps = { store, clusters: connector, clock: { now: () => new Date() }, logger: silentLogger };
    const request = { cluster: CLUSTER, namespace: NAMESPACE, name: "bench" };
    cluster.faults.set({ latencyMs: LATENCY_MS });

    // Warm-up: discovery cache, connection pool, JIT.
    await releaseStatus(deps, request);
    await releaseStatus(deps, { ...request, concurrency: 1 });

    const engine: number[] = [];
    let engineStats = { total: 0, maxInFlight: 0 };
    let reads = 0;
    for (let i = 0; i < RUNS; i++) {
      cluster.resetStats();
      const { ms, value } = await time(() => releaseStatus(deps, request));
      engine.push(ms);
      reads = value.resources.length + value.missing.length;
      const stats = cluster.stats();
      engineStats = { total: stats.total, maxInFlight: stats.maxInFlight };
    }

    const serial: number[] = [];
    let serialStats = { total: 0, maxInFlight: 0 };
    for (let i = 0; i < RUNS; i++) {
      cluster.resetStats();
      serial.push((await time(() => releaseStatus(deps, { ...request, concurrency: 1 }))).ms);
      const stats = cluster.stats();
      serialStats = { total: stats.total, maxInFlight: stats.maxInFlight };
    }

    // The floor: one store read plus one API round trip on the same warm connection pool.
    const requester = await requesterFor(CLUSTER, await connector.kubeConfig(CLUSTER));
    const limit: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const { ms } = await time(async () => {
        await store.getLatest({ cluster: CLUSTER, namespace: NAMESPACE, name: "bench" });
        await requester.get(
          `/api/v1/namespaces/${NAMESPACE}/configmaps/app-0`,
          "application/json",
          AbortSignal.timeout(10_000),
        );
      });
      limit.push(ms);
    }

    const helm = await helmBinary();
    const helmTimes: number[] = [];
    let helmStats = { total: 0, maxInFlight: 0 };
    if (helm) {
      const runner = helmRunner(helm, cluster.kubeconfig());
      try {
        await runner.status("bench", NAMESPACE); // fills helm's discovery cache, like our warm-up
        for (let i = 0; i < 3; i++) {
          cluster.resetStats();
          helmTimes.push((await runner.status("bench", NAMESPACE)).ms);
          const stats = cluster.stats();
          helmStats = { total: stats.total, maxInFlight: stats.maxInFlight };
        }
      } finally {
        runner.cleanup();
      }
    }

    const e = median(engine);
    const s = median(serial);
    const l = median(limit);
    const fmt = (ms: number) => `${ms.toFixed(0).padStart(6)} ms`;
    const out: string[] = [];
    out.push(
      `status of a ${reads}-resource release (${PER_KIND} selectors), API latency +${LATENCY_MS} ms, median of ${RUNS} runs`,
    );
    out.push(
      `  engine (concurrency 16) ${fmt(e)}   requests ${engineStats.total}, max in flight ${engineStats.maxInFlight}`,
    );
    out.push(
      `  engine (concurrency 1)  ${fmt(s)}   requests ${serialStats.total}, max in flight ${serialStats.maxInFlight}`,
    );
    if (helmTimes.length) {
      out.push(
        `  helm v4 status          ${fmt(median(helmTimes))}   requests ${helmStats.total}, max in flight ${helmStats.maxInFlight} (process start included)`,
      );
    } else {
      out.push("  helm v4 status          (no helm binary: skipped)");
    }
    out.push(`  limit (1 read + 1 RTT)  ${fmt(l)}`);
    out.push("ratios");
    if (helmTimes.length) out.push(`  helm / engine           ${(median(helmTimes) / e).toFixed(1)}x`);
    out.push(`  serial / engine         ${(s / e).toFixed(1)}x`);
    out.push(`  engine / limit          ${(e / l).toFixed(1)}x`);
    process.stdout.write(`${out.join("\n")}\n`);
  } finally {
    await closeKubeConnections();
    await sim.stop();
  }
}

await main();
