/**
 * `npm run bench -- audit`: the status-history pipeline end to end on this machine.
 * N deployed releases (BENCH_AUDIT_RELEASES, default 1,000, the issue's figure; about 3 minutes on 2 cores)
 * x 20 resources over 3 simulated clusters at 20 ms per API request (the simulator in
 * a worker thread), fauxqs, DynamoDB Local. Prints (never asserts):
 *   - releases/s of one worker (in this process), first run (new snapshots) and a stable run (extends);
 *   - releases/s with 1, 2 and 4 worker processes on one queue, the scaling factor, and the
 *     simulator thread's CPU meanwhile (is it the bottleneck?);
 *   - DynamoDB items and bytes written per release per run: run-length history vs one snapshot per run;
 *   - worker RSS.
 * Bounded: every wait has a deadline (WATCHDOG_MS).
 */
import { spawn } from "node:child_process";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { auditRuntimeFromEnv } from "../functions/audit/deps.ts";
import { createPlannerHandler } from "../functions/audit/planner.ts";
import { createWorkerHandler } from "../functions/audit/worker.ts";
import { startDynamoDbLocal } from "../local/dynamodb-local.ts";
import { createQueueWithDlq, startLocalSqs } from "../local/fauxqs.ts";
import { createLocalPoller } from "../local/queue/poller.ts";
import { startSimulatedEksInWorker } from "../local/sim/worker.ts";
import { silentLogger } from "../shared/ports.ts";
import type { DynamoDbSnapshotStore } from "../shared/snapshots/dynamodb-snapshot-store.ts";
import { ensureSnapshotsTable } from "../shared/snapshots/table-schema.ts";
import { openReleaseStore } from "../shared/store/config.ts";
import { ensureReleasesTable } from "../shared/store/table-schema.ts";
import { CORES, cpuMeter, formatCores, machineBusySeconds, processCpuSeconds } from "./cpu.ts";
import { benchRelease, machineLoad, startWatchdog } from "./lib.ts";

const RELEASES = Number(process.env.BENCH_AUDIT_RELEASES ?? 1000);
const CLUSTERS = ["bench-a", "bench-b", "bench-c"];
const LATENCY_MS = 20;
const WATCHDOG_MS = 10 * 60_000;
const PROCESS_COUNTS = [1, 2, 4];

startWatchdog("audit bench", WATCHDOG_MS);

const out = (line = "") => process.stdout.write(`${line}\n`);
out(
  `audit bench: ${RELEASES} releases x 20 resources over ${CLUSTERS.length} clusters, ${LATENCY_MS} ms per API request`,
);
out(`machine: ${machineLoad()}`);

const [dynamo, sim, sqs] = await Promise.all([
  startDynamoDbLocal(),
  startSimulatedEksInWorker({ clusters: CLUSTERS.map((name) => ({ name })), latencyMs: LATENCY_MS, seed: 1 }),
  startLocalSqs({ port: 0 }),
]);
try {
  const credentials = sim.credentials;
  const simSeconds = async () => {
    const used = await sim.cpuUsage();
    return (used.user + used.system) / 1e6;
  };
  // What each engine spent (cores over the timed run): the machine has CORES for all of them.
  const engines = (workers: Record<string, () => number>) => ({
    ...workers,
    simulator: simSeconds,
    "DynamoDB Local": () => processCpuSeconds(dynamo.pid),
    machine: machineBusySeconds,
  });
  const location = { region: "us-east-1", endpoint: dynamo.endpoint, credentials };
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    ...sqs.env,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    CLUSTERS: JSON.stringify(sim.registryEntries()),
    RELEASES_TABLE: "bench-releases",
    SNAPSHOTS_TABLE: "bench-snapshots",
    AUDIT_RELEASES_PER_MESSAGE: "10",
    AUDIT_CLUSTER_CONCURRENCY: "8",
    POWERTOOLS_METRICS_DISABLED: "true",
    POWERTOOLS_LOG_LEVEL: "SILENT",
  };
  // The in-process worker's cluster connector takes AWS credentials from this process's environment (the
  // default chain), like the child processes take them from `env`: without them every in-process read fails
  // and the figures would be of Unknown snapshots (they were, before 2026-12-03).
  Object.assign(process.env, {
    POWERTOOLS_METRICS_DISABLED: "true",
    POWERTOOLS_LOG_LEVEL: "SILENT",
    AWS_REGION: env.AWS_REGION,
    AWS_ACCESS_KEY_ID: env.AWS_ACCESS_KEY_ID,
    AWS_SECRET_ACCESS_KEY: env.AWS_SECRET_ACCESS_KEY,
  });
  const admin = new DynamoDBClient(location);
  await ensureReleasesTable(admin, { ...location, tableName: env.RELEASES_TABLE });
  await ensureSnapshotsTable(admin, { ...location, tableName: env.SNAPSHOTS_TABLE });
  admin.destroy();
  const store = openReleaseStore({ ...location, tableName: env.RELEASES_TABLE });
  const setupStart = Date.now();
  // Eight releases at a time (bounded): setup is not the figure (1,000 releases: about 15 s on a quiet machine).
  let nextIndex = 0;
  const setupOne = async (): Promise<void> => {
    for (let i = nextIndex++; i < RELEASES; i = nextIndex++) {
      const cluster = CLUSTERS[i % CLUSTERS.length];
      const release = benchRelease(`rel-${i}`, `ns-${i % 10}`, 5);
      await store.putRevision(cluster, release);
      await sim.cluster(cluster).materialize(release.manifest, { namespace: release.namespace });
    }
  };
  await Promise.all(Array.from({ length: 8 }, setupOne));
  out(`setup: ${RELEASES} releases stored and materialised in ${((Date.now() - setupStart) / 1000).toFixed(1)} s`);

  const queue = await createQueueWithDlq(sqs.client, "bench-audit", { visibilityTimeoutSeconds: 120 });
  const runEnv = { ...env, AUDIT_QUEUE_URL: queue.queueUrl };
  const plannerRuntime = auditRuntimeFromEnv(runEnv, { needQueueUrl: true }, { logger: silentLogger });
  const planner = createPlannerHandler(plannerRuntime);
  let slot = Date.parse("2026-01-01T00:00:00Z");
  const nextRun = async () => {
    slot += 300_000;
    const planStart = Date.now();
    const plan = await planner({ time: new Date(slot).toISOString() });
    return { runId: plan.run.runId, planMs: Date.now() - planStart };
  };
  const waitForRun = async (runId: string) => {
    for (const deadline = Date.now() + WATCHDOG_MS; Date.now() < deadline; ) {
      const run = await plannerRuntime.auditRuns.getRun(runId);
      if (run.done >= run.planned) {
        // A figure of snapshots that say "could not read the cluster" is not a figure of audits.
        if (run.failed > 0) out(`  WARNING: ${run.failed} of ${run.done} releases were not read (Unknown snapshots)`);
        return run;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`run ${runId} did not complete`);
  };

  // One worker in this process: a first run (every snapshot new) and a stable run (every snapshot extended).
  const workerRuntime = auditRuntimeFromEnv(runEnv, {}, { logger: silentLogger });
  const stats = (workerRuntime.snapshots as DynamoDbSnapshotStore).stats;
  const poller = createLocalPoller({
    client: sqs.client,
    queueUrl: queue.queueUrl,
    handler: createWorkerHandler(workerRuntime),
    waitTimeSeconds: 1,
    functionTimeoutMs: 120_000,
  });
  const inProcess: Record<string, { rate: number; items: number; units: number }> = {};
  for (const label of ["first run (creates)", "stable run (extends)"]) {
    const before = { ...stats };
    const { runId, planMs } = await nextRun();
    const start = Date.now();
    const meter = await cpuMeter(
      engines({ "bench process (worker, fauxqs, simulator thread incl.)": () => processCpuSeconds(process.pid) }),
    );
    poller.start();
    await waitForRun(runId);
    await poller.stop();
    const seconds = (Date.now() - start) / 1000;
    const usage = await meter.since();
    inProcess[label] = {
      rate: RELEASES / seconds,
      items: (stats.items - before.items) / RELEASES,
      units: (stats.writeUnits - before.writeUnits) / RELEASES,
    };
    out(
      `1 worker, in process, ${label}: ${(RELEASES / seconds).toFixed(1)} releases/s (${seconds.toFixed(1)} s; planning ${planMs} ms)`,
    );
    out(`  CPU (cores of ${CORES}): ${formatCores(usage)}`);
  }
  const created = inProcess["first run (creates)"];
  const extended = inProcess["stable run (extends)"];
  out();
  out("DynamoDB writes per release per run (snapshots table; write units as DynamoDB Local reports them, indexes");
  out("included, 1 unit = up to 1 KB; the run's per-message done marker is shared by the 10 releases of a message):");
  out(
    `  run-length history, release unchanged: ${extended.items.toFixed(2)} items, ${extended.units.toFixed(2)} write units`,
  );
  out(
    `  run-length history, release changed:   ${created.items.toFixed(2)} items, ${created.units.toFixed(2)} write units`,
  );
  out(
    `  a snapshot per run (each run writes what a change writes): ${created.items.toFixed(2)} items, ${created.units.toFixed(2)} write units`,
  );
  out(
    `  -> a stable release costs ${(created.units / Math.max(0.01, extended.units)).toFixed(1)}x fewer write units per run, and a month of 5-minute audits is 1 stored item instead of 8,640`,
  );

  // 1, 2, 4 worker processes on one queue (stable runs).
  out();
  const rates: number[] = [];
  for (const count of PROCESS_COUNTS) {
    const children = Array.from({ length: count }, () =>
      spawn(process.execPath, [new URL("./audit-worker.ts", import.meta.url).pathname], {
        env: runEnv,
        stdio: ["ignore", "pipe", "inherit"],
      }),
    );
    let readyCount = 0;
    const ready = new Promise<void>((resolve) => {
      for (const child of children) {
        child.stdout!.once("data", () => {
          readyCount++;
          if (readyCount === count) resolve();
        });
      }
    });
    const reports = children.map(
      (child) =>
        new Promise<{ peakRss: number }>((resolve) => {
          let text = "";
          child.stdout!.on("data", (chunk) => (text += chunk));
          child.once("exit", () => resolve(JSON.parse(text.trim().split("\n").at(-1) || '{"peakRss":0}')));
        }),
    );
    // Timed from when every process is polling: process start (seconds on a loaded machine) is not the figure.
    await ready;
    // One untimed run first: cold processes (JIT, connections, EKS tokens, discovery) are not the figure either.
    await waitForRun((await nextRun()).runId);
    const meter = await cpuMeter(
      engines({
        [`worker process${count > 1 ? "es" : ""}`]: () =>
          children.reduce((sum, child) => sum + processCpuSeconds(child.pid!), 0),
        "bench process (planner, fauxqs, simulator thread)": () => processCpuSeconds(process.pid),
      }),
    );
    const start = Date.now();
    const { runId } = await nextRun();
    await waitForRun(runId);
    const seconds = (Date.now() - start) / 1000;
    const usage = await meter.since();
    const simBusy = usage.simulator;
    const rss = (await Promise.all(reports)).map((r) => r.peakRss);
    const rate = RELEASES / seconds;
    rates.push(rate);
    out(
      `${count} worker process${count > 1 ? "es" : ""}: ${rate.toFixed(1)} releases/s (${seconds.toFixed(1)} s), ` +
        `scaling ${(rate / rates[0]).toFixed(2)}x (ideal ${count}x), simulator thread CPU ${(simBusy * 100).toFixed(0)}% of one core, ` +
        `worker peak RSS ${rss.map((b) => `${(b / 2 ** 20).toFixed(0)} MB`).join(", ")}`,
    );
    out(`  CPU (cores of ${CORES}): ${formatCores(usage)}`);
  }
} finally {
  // The runtimes' KubeReaders hold connections to the simulator; process.exit below ends them.
  await Promise.allSettled([sqs.stop(), sim.stop(), dynamo.stop()]);
}
process.exit(0);
