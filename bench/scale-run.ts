/**
 * One size of the scale bench (issue #36): a fleet, then the product's real functions over it — the sync scheduler
 * and workers for two sync periods (the import, then a steady one), the audit planner and workers for two audit
 * periods (first snapshots, then a steady one), and the fleet page's reads — each function as Lambda runs it: the
 * handler with its deps from the environment, SQS through fauxqs, DynamoDB Local, one runtime per concurrent
 * execution environment (the event source's maximumConcurrency, serverless.yml), warm from one period to the next.
 */
import { DescribeTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { PurgeQueueCommand, type SQSClient } from "@aws-sdk/client-sqs";
import { auditRuntimeFromEnv } from "../functions/audit/deps.ts";
import { createPlannerHandler } from "../functions/audit/planner.ts";
import { createWorkerHandler } from "../functions/audit/worker.ts";
import { syncRuntimeFromEnv } from "../functions/sync/deps.ts";
import { createSchedulerHandler } from "../functions/sync/scheduler.ts";
import { createSyncWorkerHandler } from "../functions/sync/worker.ts";
import { createQueueWithDlq } from "../local/fauxqs.ts";
import { createLocalPoller, type SqsBatchHandler } from "../local/queue/poller.ts";
import { silentLogger } from "../shared/ports.ts";
import { createSqsClient } from "../shared/queue/config.ts";
import { ensureSnapshotsTable } from "../shared/snapshots/table-schema.ts";
import { ensureReleasesTable } from "../shared/store/table-schema.ts";
import { injectFaults } from "./scale-faults.ts";
import { type Fleet, startFleet } from "./scale-fleet.ts";
import { delta, type InvocationCounts, LambdaMeter, type MeteringProxy, type OperationCounts } from "./scale-meter.ts";
import { type FleetPageFigures, measureFleetPage } from "./scale-page.ts";

export interface SizeOptions {
  clusters: number;
  releases: number;
  /** The faults: 1 cluster in 100 unreachable, one account revoked, DescribeCluster throttled, one big cluster. */
  faults: boolean;
  /** Releases of the faults' big cluster (fleet-0001; default 5,000). */
  big?: number;
  latencyMs: number;
  /** Where everything outside the fleet is: DynamoDB Local and fauxqs, each behind its metering proxy. */
  services: {
    dynamo: MeteringProxy;
    sqs: MeteringProxy;
    sqsClient: SQSClient;
    credentials: { accessKeyId: string; secretAccessKey: string };
  };
  log: (line: string) => void;
}

export interface PhaseFigures {
  label: string;
  seconds: number;
  lambda: Record<string, InvocationCounts>;
  sqs: OperationCounts;
  /** Receives that found nothing (the event source's idle polling; in the bench, polls at the end of a period). */
  sqsEmptyReceives: number;
  dynamo: OperationCounts;
  describeCluster: { calls: number; throttled: number };
  assumeRole: { calls: number; throttled: number };
  kubeRequests: number;
  kubeBytes: number;
  /** Mean answer time of the requests the clusters logged (their ring keeps the latest 10,000 each). */
  kubeMeanMs: number;
  /** The busiest cluster's requests in the phase. */
  kubeMaxPerCluster: number;
  outcome: string;
  /**
   * CPU seconds of the bench's main thread in the phase (the functions' handlers, and fauxqs and the metering
   * proxies, which are small): the simulator's thread and DynamoDB Local (its own process) are not in it.
   */
  functionsCpuSeconds: number;
  /** Per cluster (sync: its worker's wall ms; audit: not split). */
  perCluster: Record<string, { requests: number; ms?: number; failed?: boolean }>;
}

export interface SizeFigures {
  clusters: number;
  releases: number;
  totalReleases: number;
  accounts: number;
  secretBytes: number;
  /** Both tables' TableSizeBytes (DynamoDB Local's DescribeTable) after the periods. */
  storedBytes: number;
  setupSeconds: number;
  phases: PhaseFigures[];
  fleetPage: FleetPageFigures;
  faults?: Record<string, string[]>;
}

/** serverless.yml's event sources: batch size and maximumConcurrency; timeouts; memory (provider default). */
export const FUNCTIONS = {
  syncWorker: { batchSize: 1, concurrency: 5, timeoutMs: 300_000 },
  auditWorker: { batchSize: 5, concurrency: 10, timeoutMs: 120_000 },
  memoryMb: 1024,
};
const PERIOD_DEADLINE_MS = 240_000;

export async function runSize(options: SizeOptions): Promise<SizeFigures> {
  const { log } = options;
  const setupStart = Date.now();
  const big = options.faults ? { "fleet-0001": options.big ?? 5_000 } : undefined;
  const fleet = await startFleet({
    clusters: options.clusters,
    releases: options.releases,
    latencyMs: options.latencyMs,
    seed: 1,
    overrides: big,
    credentials: options.services.credentials,
  });
  const setupSeconds = (Date.now() - setupStart) / 1000;
  const totalReleases = [...fleet.releases.values()].reduce((a, b) => a + b, 0);
  log(`  fleet: ${options.clusters} clusters, ${totalReleases} releases, set up in ${setupSeconds.toFixed(1)} s`);
  try {
    return await measure(fleet, options, { setupSeconds, totalReleases });
  } finally {
    await fleet.sim.stop();
  }
}

async function measure(
  fleet: Fleet,
  options: SizeOptions,
  facts: { setupSeconds: number; totalReleases: number },
): Promise<SizeFigures> {
  const { services, log, clusters } = options;
  const tag = `${clusters}x${options.releases}${options.faults ? "f" : ""}-${Date.now() % 100_000}`;
  const syncQueue = await createQueueWithDlq(services.sqsClient, `scale-sync-${tag}`, {
    visibilityTimeoutSeconds: 900,
  });
  const auditQueue = await createQueueWithDlq(services.sqsClient, `scale-audit-${tag}`, {
    visibilityTimeoutSeconds: 900,
  });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: services.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: services.credentials.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: services.dynamo.endpoint,
    AWS_ENDPOINT_URL_SQS: services.sqs.endpoint,
    CLUSTERS: JSON.stringify(fleet.sim.registryEntries()),
    RELEASES_TABLE: `scale-releases-${tag}`,
    SNAPSHOTS_TABLE: `scale-snapshots-${tag}`,
    SYNC_QUEUE_URL: syncQueue.queueUrl,
    AUDIT_QUEUE_URL: auditQueue.queueUrl,
    AUDIT_RELEASES_PER_MESSAGE: "10",
    POWERTOOLS_METRICS_DISABLED: "true",
    POWERTOOLS_LOG_LEVEL: "SILENT",
  };
  const location = { region: "us-east-1", endpoint: services.dynamo.endpoint, credentials: services.credentials };
  const admin = new DynamoDBClient(location);
  await ensureReleasesTable(admin, { ...location, tableName: env.RELEASES_TABLE });
  await ensureSnapshotsTable(admin, { ...location, tableName: env.SNAPSHOTS_TABLE });
  admin.destroy();
  const lambda = new LambdaMeter();
  const sqsClient = createSqsClient({
    region: "us-east-1",
    endpoint: services.sqs.endpoint,
    credentials: services.credentials,
  });

  // One runtime per execution environment, kept across periods (a warm Lambda keeps its caches).
  const syncRuntimes = Array.from({ length: FUNCTIONS.syncWorker.concurrency }, () =>
    syncRuntimeFromEnv(env, {}, { logger: silentLogger }),
  );
  const auditRuntimes = Array.from({ length: FUNCTIONS.auditWorker.concurrency }, () =>
    auditRuntimeFromEnv(env, {}, { logger: silentLogger }),
  );
  const schedulerRuntime = syncRuntimeFromEnv(env, { needQueueUrl: true }, { logger: silentLogger });
  const plannerRuntime = auditRuntimeFromEnv(env, { needQueueUrl: true }, { logger: silentLogger });
  const scheduler = lambda.wrap("syncScheduler", createSchedulerHandler(schedulerRuntime, sqsClient));
  const planner = lambda.wrap("auditPlanner", createPlannerHandler(plannerRuntime));
  const syncMs = new Map<string, number>();
  const syncFailed = new Set<string>();
  const syncWorkers = syncRuntimes.map((runtime) => {
    const handler = createSyncWorkerHandler(runtime) as SqsBatchHandler;
    // Batch size 1: each invocation is one cluster's sync, timed per cluster for the faults' figures.
    return lambda.wrap(
      "syncWorker",
      async (event: Parameters<SqsBatchHandler>[0], context: Parameters<SqsBatchHandler>[1]) => {
        const started = performance.now();
        const cluster = JSON.parse(event.Records[0]?.body ?? "{}").cluster ?? "?";
        let failed = true;
        try {
          const result = await handler(event, context);
          failed = (result?.batchItemFailures?.length ?? 0) > 0;
          return result;
        } finally {
          syncMs.set(cluster, (syncMs.get(cluster) ?? 0) + performance.now() - started);
          if (failed) syncFailed.add(cluster);
        }
      },
    );
  });
  const auditWorkers = auditRuntimes.map((runtime) => lambda.wrap("auditWorker", createWorkerHandler(runtime)));

  /** Every environment polls its queue until `expected` records were handed to a handler (or the deadline). */
  const drain = async (
    queueUrl: string,
    handlers: SqsBatchHandler[],
    config: { batchSize: number; timeoutMs: number },
    expected: number,
  ) => {
    let processed = 0;
    const deadline = Date.now() + PERIOD_DEADLINE_MS;
    await Promise.all(
      handlers.map(async (handler) => {
        const poller = createLocalPoller({
          client: sqsClient,
          queueUrl,
          handler,
          batchSize: config.batchSize,
          waitTimeSeconds: 1,
          functionTimeoutMs: config.timeoutMs,
        });
        while (processed < expected && Date.now() < deadline) {
          const outcome = await poller.pollOnce();
          processed += outcome.received;
        }
      }),
    );
    // What failed stays invisible for the visibility timeout (its redelivery is the next period's work).
    await sqsClient.send(new PurgeQueueCommand({ QueueUrl: queueUrl }));
    return processed;
  };

  const phases: PhaseFigures[] = [];
  const phase = async (label: string, work: () => Promise<string>) => {
    await Promise.all(fleet.names.map((name) => fleet.sim.cluster(name).resetStats()));
    await fleet.sim.aws.resetStats();
    syncMs.clear();
    syncFailed.clear();
    const cpuBefore = process.cpuUsage();
    const simCpuBefore = await fleet.sim.cpuUsage();
    const before = { lambda: lambda.snapshot(), sqs: services.sqs.snapshot(), dynamo: services.dynamo.snapshot() };
    const started = Date.now();
    const outcome = await work();
    const seconds = (Date.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const simCpuAfter = await fleet.sim.cpuUsage();
    const simCpu = simCpuAfter.user + simCpuAfter.system - simCpuBefore.user - simCpuBefore.system;
    const stats = await Promise.all(fleet.names.map((name) => fleet.sim.cluster(name).stats()));
    const aws = await fleet.sim.aws.stats();
    const lambdaAfter = lambda.snapshot();
    const lambdaDelta = Object.fromEntries(
      Object.entries(lambdaAfter).map(([name, c]) => {
        const b = before.lambda[name] ?? { invocations: 0, billedMs: 0, errors: 0 };
        return [
          name,
          {
            invocations: c.invocations - b.invocations,
            billedMs: c.billedMs - b.billedMs,
            errors: c.errors - b.errors,
          },
        ];
      }),
    );
    const sqsNow = services.sqs.snapshot();
    const figures: PhaseFigures = {
      label,
      seconds,
      lambda: Object.fromEntries(Object.entries(lambdaDelta).filter(([, c]) => c.invocations > 0)),
      sqs: delta(sqsNow, before.sqs, (op) => op !== "ReceiveMessage(empty)"),
      sqsEmptyReceives: delta(sqsNow, before.sqs, (op) => op === "ReceiveMessage(empty)").requests,
      dynamo: delta(services.dynamo.snapshot(), before.dynamo),
      describeCluster: { calls: aws.DescribeCluster?.calls ?? 0, throttled: aws.DescribeCluster?.throttled ?? 0 },
      assumeRole: { calls: aws.AssumeRole?.calls ?? 0, throttled: aws.AssumeRole?.throttled ?? 0 },
      kubeRequests: stats.reduce((s, x) => s + x.total, 0),
      kubeBytes: stats.reduce((s, x) => s + x.bytesOut, 0),
      kubeMeanMs:
        stats.reduce((s, x) => s + x.log.reduce((t, e) => t + e.durationMs, 0), 0) /
        Math.max(
          1,
          stats.reduce((s, x) => s + x.log.length, 0),
        ),
      kubeMaxPerCluster: Math.max(...stats.map((x) => x.total)),
      outcome,
      functionsCpuSeconds: Math.max(0, cpu.user + cpu.system - simCpu) / 1e6,
      perCluster: Object.fromEntries(
        fleet.names.map((name, i) => [
          name,
          {
            requests: stats[i].total,
            ...(syncMs.has(name) ? { ms: syncMs.get(name) } : {}),
            ...(syncFailed.has(name) ? { failed: true } : {}),
          },
        ]),
      ),
    };
    phases.push(figures);
    log(`  ${label}: ${seconds.toFixed(1)} s; ${outcome}`);
  };

  const syncPeriod = async () => {
    const scheduled = await scheduler(undefined as never, undefined as never);
    const processed = await drain(syncQueue.queueUrl, syncWorkers, FUNCTIONS.syncWorker, scheduled.clusters.length);
    return `${scheduled.clusters.length} clusters scheduled, ${processed} handled`;
  };
  let slot = Date.parse("2026-12-04T12:00:00Z");
  const auditPeriod = async () => {
    slot += 300_000;
    const plan = await planner(
      { time: new Date(Math.min(slot, Date.now())).toISOString() } as never,
      undefined as never,
    );
    const processed = await drain(auditQueue.queueUrl, auditWorkers, FUNCTIONS.auditWorker, plan.sent);
    const run = await plannerRuntime.auditRuns.getRun(plan.run.runId);
    return `${run.planned} releases planned in ${plan.sent} messages, ${processed} messages handled, ${run.done} done, ${run.failed} not read (Unknown)`;
  };
  await phase("sync period 1 (import)", syncPeriod);
  // The faults strike a fleet already imported (the store knows every release), as they would in production;
  // DescribeCluster is throttled from here (what warm environments cached is not asked again).
  const faults = options.faults ? await injectFaults(fleet, fleet.releases.get("fleet-0001") ?? 0, log) : undefined;
  await phase("sync period 2 (steady)", syncPeriod);
  // A minute of throttling would outlast the bench's compressed periods: it ends with the first one it hit.
  if (faults) await fleet.sim.aws.throttleFor("DescribeCluster", 0);
  await phase("audit period 1 (first snapshots)", auditPeriod);
  await phase("audit period 2 (steady)", auditPeriod);

  const fleetPage = await measureFleetPage(
    {
      store: plannerRuntime.store,
      snapshots: plannerRuntime.snapshots,
      clusters: plannerRuntime.clusters,
      clock: plannerRuntime.clock,
    },
    services.dynamo,
  );
  const sizer = new DynamoDBClient(location);
  const tableBytes = async (TableName: string) =>
    (await sizer.send(new DescribeTableCommand({ TableName }))).Table?.TableSizeBytes ?? 0;
  const storedBytes = (await tableBytes(env.RELEASES_TABLE)) + (await tableBytes(env.SNAPSHOTS_TABLE));
  sizer.destroy();
  await Promise.allSettled(
    [...syncRuntimes, ...auditRuntimes, schedulerRuntime, plannerRuntime].map((r) => r.close?.()),
  );
  sqsClient.destroy();
  return {
    clusters,
    releases: options.releases,
    totalReleases: facts.totalReleases,
    accounts: Math.ceil(clusters / 10),
    secretBytes: fleet.secretBytes,
    storedBytes,
    setupSeconds: facts.setupSeconds,
    phases,
    fleetPage,
    ...(faults ? { faults } : {}),
  };
}
