/**
 * `npm run bench`: how fast is a status read, against the simulated EKS with 20 ms
 * added to every API request (a far-away API server), for a 40-resource release
 * (10 each of ServiceAccount, ConfigMap, Service, Deployment; 10 distinct
 * selectors sharing one pods LIST, so 41 reads per status)? See docs/bench.md.
 *
 *   engine      releaseStatus + Helm text, warm (KubeReader pools open), default caps: one wave
 *   engine@16   the same at concurrency 16 (the default before issue #12: four waves)
 *   engine@1    the same at concurrency 1
 *   helm        the real helm v4 `helm status` on the same cluster state, process start included,
 *               its discovery cache warm (its own HOME, filled by a first run)
 *   limit       one DynamoDB read + one API round trip: no status can be faster
 *
 * The release is read from DynamoDB Local, the cluster through the product's EKS
 * connector (DescribeCluster + presigned token, cached as in a warm Lambda). The
 * simulator runs in a worker thread, so its CPU does not share the engine's event
 * loop (a real API server is remote). Rounds interleave the four so load drift on
 * a shared machine hits all of them alike. Nothing is asserted: ratios are printed.
 *
 * Then (status-*.ts): a cold status, N = 10..640 reads, many statuses on one
 * cluster (and a 429 storm), the local API under 200 clients, the peak RSS of
 * `cli status` for a 5 MB manifest, the bundle and its import; last, every
 * figure next to its target (docs/bench.md).
 */
import { type DynamoDbLocal, startDynamoDbLocal } from "../local/dynamodb-local.ts";
import { helmBinary, helmRunner } from "../local/helm-oracle.ts";
import { startSimulatedEksInWorker, type WorkerSimulatedEks } from "../local/sim/worker.ts";
import { createEksConnector } from "../shared/eks/connector.ts";
import { ConnectionPools } from "../shared/kube/http.ts";
import { createKubeReader, type KubeReader } from "../shared/kube/reader.ts";
import { silentLogger } from "../shared/ports.ts";
import { encodeHelmSecret } from "../shared/release/helm-codec.ts";
import { renderStatusText } from "../shared/render/status/text.ts";
import type { StatusReport } from "../shared/status/report.ts";
import { openReleaseStore } from "../shared/store/config.ts";
import { releaseStatus, type StatusDeps } from "../shared/usecases/status.ts";
import { openAttributionStore } from "../shared/who/config.ts";
import {
  benchRelease,
  floors,
  isDiscoveryPath,
  machineLoad,
  median,
  memoryGrowth,
  memoryLine,
  timed,
  timedHelmVersion,
} from "./lib.ts";
import { benchFunctionEnv, benchReleasesTable } from "./local-stack.ts";
import { bundleFigures } from "./status-bundle.ts";
import { cannedComparison } from "./status-canned.ts";
import { type BenchContext, coldStatus, scaling } from "./status-cold-scale.ts";
import { apiUnderLoad, manyStatuses } from "./status-load.ts";
import { driftAlone, driftCost, type Sample, sampleRow, targetLines, zero } from "./status-report.ts";
import { cliStatusPeakRss } from "./status-rss.ts";

const LATENCY_MS = 20;
/** The warm ratio is a median of small differences on a shared VM: 9 rounds moved it by ±0.1 between runs. */
const ROUNDS = 15;
const LARGE_RUNS = 5;
const API_LOAD_SECONDS = 20;
const STORE_WARM_READS = 300;
const STORE_WARM_MAX_MS = 15_000;
const CLUSTER = "bench";
/** Everything must be over well within this: a hung piece fails the bench instead of stalling it. */
const WATCHDOG_MS = 8 * 60_000;

const watchdog = setTimeout(() => {
  process.stderr.write(`bench: not finished after ${WATCHDOG_MS / 1000} s, giving up\n`);
  process.exit(2);
}, WATCHDOG_MS);
watchdog.unref();

async function main(): Promise<void> {
  const loadBefore = machineLoad();
  let sim: WorkerSimulatedEks | undefined;
  let dynamo: DynamoDbLocal | undefined;
  let kube: KubeReader | undefined;
  const rttPools = new ConnectionPools();
  try {
    [sim, dynamo] = await Promise.all([
      startSimulatedEksInWorker({ clusters: [{ name: CLUSTER }], seed: 1 }),
      startDynamoDbLocal(),
    ]);
    const cfg = await benchReleasesTable(dynamo.endpoint);
    const store = openReleaseStore(cfg);

    const simulator = sim;
    const cluster = sim.cluster(CLUSTER);
    const small = benchRelease("bench", "bench", 10);
    const large = benchRelease("large", "large", 75);
    for (const release of [small, large]) {
      await cluster.materialize(release.manifest ?? "", { namespace: release.namespace });
      await store.putRevision(CLUSTER, release);
    }
    await cluster.apply([encodeHelmSecret(small)]); // helm reads its release from the cluster

    const credentials = sim.credentials;
    const connector = createEksConnector({ registry: sim.registryEntries(), credentials: async () => credentials });
    const reader = createKubeReader({ connector });
    kube = reader;
    const deps: StatusDeps = { store, kube: reader, logger: silentLogger };
    // The same status reading who made its drifted writes (issue #34): one Query of the releases table beside it.
    const whoDeps: StatusDeps = { ...deps, attributions: openAttributionStore(cfg) };
    const status = async (name: string, namespace: string, concurrency?: number, drift = true, who = false) => {
      const report = await releaseStatus(who ? whoDeps : deps, {
        cluster: CLUSTER,
        namespace,
        name,
        concurrency,
        drift,
      });
      return { report, text: renderStatusText(report) };
    };
    const connects = () => reader.stats(CLUSTER).socketsOpened;
    const requester = await rttPools.requester(CLUSTER, await connector.access(CLUSTER));
    const storeRead = () => store.getLatest({ cluster: CLUSTER, namespace: "bench", name: "bench" });
    const roundTrip = async () => {
      const reply = await requester.get("/api/v1/namespaces/bench/configmaps/app-0", "application/json", signal());
      if (reply.status !== 200) throw new Error(`limit: GET answered ${reply.status}`);
    };
    const limitOnce = async () => {
      await storeRead();
      await roundTrip();
    };

    // DynamoDB Local is a JVM: its first few hundred reads are JIT-cold (≈ 15 ms, then ≈ 6 ms each).
    // A real DynamoDB endpoint is always warm, so the store is warmed before anything is timed.
    const storeWarmUntil = performance.now() + STORE_WARM_MAX_MS;
    for (let i = 0; i < STORE_WARM_READS && performance.now() < storeWarmUntil; i++) {
      await store.getLatest({ cluster: CLUSTER, namespace: "bench", name: "bench" });
    }
    await cluster.faults.set({ latencyMs: LATENCY_MS });
    // Warm-up: discovery cache, kubeconfig and token, connection pools, JIT on both threads.
    for (let i = 0; i < 4; i++) {
      await status("bench", "bench");
      await status("bench", "bench", 16);
      await status("bench", "bench", 1);
      await status("large", "large", 16);
      await limitOnce();
    }
    const measure = async (run: () => Promise<unknown>): Promise<Sample> => {
      await cluster.resetStats();
      const elu = performance.eventLoopUtilization();
      const connectsBefore = connects();
      const simCpu = await simulator.cpuUsage();
      const cpu = process.threadCpuUsage();
      const { ms, value } = await timed(run);
      const cpuUsed = process.threadCpuUsage(cpu);
      const simCpuAfter = await simulator.cpuUsage();
      const opened = connects() - connectsBefore;
      const busyMs = performance.eventLoopUtilization(elu).active;
      const stats = await cluster.stats();
      const counters = (value as { report?: StatusReport } | undefined)?.report?.counters;
      return {
        ms,
        requests: stats.total,
        maxInFlight: stats.maxInFlight,
        discovery: stats.log.filter((entry) => isDiscoveryPath(entry.path)).length,
        busyMs,
        cpuMs: (cpuUsed.user + cpuUsed.system) / 1000,
        simCpuMs: (simCpuAfter.user + simCpuAfter.system - simCpu.user - simCpu.system) / 1000,
        ...(counters ? { engineMaxInFlight: counters.maxInFlight, connects: opened } : {}),
      };
    };

    const helmPath = await helmBinary();
    const helm = helmPath ? helmRunner(helmPath, await cluster.kubeconfig()) : undefined;
    const samples: Record<
      "engine" | "engine16" | "noDrift" | "who" | "serial" | "limit" | "store" | "rtt" | "helm" | "helmStart",
      Sample[]
    > = {
      engine: [],
      engine16: [],
      noDrift: [],
      who: [],
      serial: [],
      limit: [],
      store: [],
      rtt: [],
      helm: [],
      helmStart: [],
    };
    let helmVersion = "";
    try {
      if (helm && helmPath) {
        await helm.status("bench", "bench"); // fills helm's discovery cache, like the engine's warm-up
        helmVersion = (await timedHelmVersion(helmPath)).version;
      }
      for (let round = 0; round < ROUNDS; round++) {
        // Drift on/off alternate which runs first, so a warm-second-run bias cancels out.
        const on = () => status("bench", "bench");
        const off = () => status("bench", "bench", undefined, false);
        const who = () => status("bench", "bench", undefined, true, true);
        if (round % 2 === 0) {
          samples.engine.push(await measure(on));
          samples.noDrift.push(await measure(off));
          samples.who.push(await measure(who));
        } else {
          samples.who.push(await measure(who));
          samples.noDrift.push(await measure(off));
          samples.engine.push(await measure(on));
        }
        samples.engine16.push(await measure(() => status("bench", "bench", 16)));
        samples.serial.push(await measure(() => status("bench", "bench", 1)));
        samples.limit.push(await measure(limitOnce));
        samples.store.push(await measure(storeRead));
        samples.rtt.push(await measure(roundTrip));
        if (helm && helmPath) {
          samples.helm.push(await measure(() => helm.status("bench", "bench")));
          samples.helmStart.push({ ...zero(), ms: (await timedHelmVersion(helmPath)).ms });
        }
      }
    } finally {
      helm?.cleanup();
    }
    const largeSamples: Sample[] = [];
    const largeNoDrift: Sample[] = [];
    for (let i = 0; i < LARGE_RUNS; i++) {
      if (i % 2 === 0) largeSamples.push(await measure(() => status("large", "large")));
      largeNoDrift.push(await measure(() => status("large", "large", undefined, false)));
      if (i % 2 === 1) largeSamples.push(await measure(() => status("large", "large")));
    }
    const memory = await memoryGrowth(() => status("bench", "bench"));
    const memoryLarge = await memoryGrowth(() => status("large", "large"));
    const simMemory = await sim.memoryUsage();
    const smallReport = (await status("bench", "bench")).report;
    const largeReport = (await status("large", "large")).report;

    const e = median(samples.engine.map((s) => s.ms));
    const e16 = median(samples.engine16.map((s) => s.ms));
    const s = median(samples.serial.map((s) => s.ms));
    const l = median(samples.limit.map((s) => s.ms));
    const h = median(samples.helm.map((s) => s.ms));
    const hs = median(samples.helmStart.map((s) => s.ms));
    const out = [
      `machine: ${loadBefore}`,
      `status of a ${smallReport.resources.length + smallReport.missing.length}-resource release (10 selectors, ${smallReport.counters.requests} reads by the engine), API latency +${LATENCY_MS} ms per request,`,
      `store DynamoDB Local, simulator in a worker thread; median (min–max) of ${ROUNDS} interleaved rounds`,
      sampleRow("engine (one wave)", samples.engine),
      sampleRow("  the same, --no-drift", samples.noDrift),
      sampleRow("  the same, reading who", samples.who, " (the attributions' one Query beside it)"),
      sampleRow("engine (concurrency 16)", samples.engine16),
      sampleRow("engine (concurrency 1)", samples.serial),
      samples.helm.length
        ? sampleRow(
            `helm ${helmVersion} status`,
            samples.helm,
            `; process start included (helm version alone: ${hs.toFixed(0)} ms)`,
          )
        : "  helm v4 status            (no helm binary: skipped)",
      sampleRow("limit (1 read + 1 RTT)", samples.limit),
      sampleRow(
        "  of which the store read",
        samples.store,
        " (one GetItem on DynamoDB Local: the body is inline in LATEST)",
      ),
      sampleRow("  of which the API RTT", samples.rtt),
      "ratios (from the medians above)",
      samples.helm.length ? `  helm / engine             ${(h / e).toFixed(1)}x` : "  helm / engine             n/a",
      `  serial / engine           ${(s / e).toFixed(1)}x`,
      `  who / engine              ${(median(samples.who.map((x) => x.ms)) / e).toFixed(2)}x (goal <= 1.02x, issue #34)`,
      `  engine@16 / engine        ${(e16 / e).toFixed(1)}x`,
      `  engine / limit            ${(e / l).toFixed(2)}x`,
      ...floors({
        store: median(samples.store.map((x) => x.ms)),
        rtt: median(samples.rtt.map((x) => x.ms)),
        engineReads: smallReport.counters.requests,
        perStatus: reader.settings.perStatus,
        helmRequests: samples.helm.at(-1)?.requests,
        helmStart: samples.helm.length ? hs : undefined,
        engine: e,
        helm: samples.helm.length ? h : undefined,
        simulatorCpu: median(samples.engine.map((x) => x.simCpuMs ?? 0)),
      }),
      `scale: ${largeReport.resources.length + largeReport.missing.length}-resource release (${largeReport.counters.requests} reads), engine only, median (min–max) of ${LARGE_RUNS}`,
      sampleRow("engine (cap 64)", largeSamples),
      sampleRow("  the same, --no-drift", largeNoDrift),
      driftCost("40 resources", samples.engine, samples.noDrift),
      driftCost("300 resources", largeSamples, largeNoDrift),
      ...driftAlone(smallReport, small.manifest ?? "", median(samples.noDrift.map((x) => x.cpuMs ?? 0))),
      ...driftAlone(largeReport, large.manifest ?? "", median(largeNoDrift.map((x) => x.cpuMs ?? 0))),
      "memory of one status in the engine's process (after a full GC before; peak = garbage included)",
      memoryLine("40 resources", memory),
      memoryLine("300 resources", memoryLarge),
      `  whole process now         heap ${mb(process.memoryUsage().heapUsed)} MB, RSS ${mb(process.memoryUsage().rss)} MB (RSS includes the simulator worker; its heap: ${mb(simMemory.heapUsed)} MB)`,
    ];
    process.stdout.write(`${out.join("\n")}\n`);

    const ctx: BenchContext = { sim: simulator, cluster, clusterName: CLUSTER, store, limitMs: l };
    const section = (lines: string[]) => process.stdout.write(`${lines.join("\n")}\n`);
    const canned = await cannedComparison(ctx, reader, { name: "bench", namespace: "bench" }, LATENCY_MS);
    section(canned.lines);
    const cold = await coldStatus(ctx, { name: "bench", namespace: "bench" });
    section(cold.lines);
    const scale = await scaling(ctx, (name, namespace) => status(name, namespace), [10, 40, 160, 640]);
    section(scale.lines);
    const many = await manyStatuses(ctx, reader, { name: "bench", namespace: "bench" });
    section(many.lines);
    const api = await apiUnderLoad(ctx, cfg, { name: "bench", namespace: "bench" }, API_LOAD_SECONDS);
    section(api.lines);
    await cluster.faults.clear(); // the CLI's peak RSS needs no latency
    const rss = await cliStatusPeakRss(ctx, cfg);
    section(rss.lines);
    await cluster.faults.set({ latencyMs: LATENCY_MS }); // the Lambda cold start is compared with the limit
    const bundled = await bundleFigures({
      env: benchFunctionEnv(cfg, simulator),
      statusPath: `/clusters/${CLUSTER}/namespaces/bench/releases/bench/status`,
      limitMs: l,
    });
    section(bundled.lines);
    await cluster.faults.clear();
    section(
      targetLines({
        warm: {
          engine: e,
          limit: l,
          helm: samples.helm.length ? h : undefined,
          cannedOverLimit: canned.engineOverLimit,
        },
        cold,
        scale,
        many,
        bundled,
        rss,
        api,
        machineAfter: machineLoad(),
      }),
    );
  } finally {
    await Promise.allSettled([kube?.close(), rttPools.close()]);
    await Promise.allSettled([sim?.stop(), dynamo?.stop()]);
  }
}

function mb(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(0);
}

function signal(): AbortSignal {
  return AbortSignal.timeout(10_000);
}

try {
  await main();
} finally {
  clearTimeout(watchdog);
}
