/**
 * The release sync in `npm start`: the scheduler and worker Lambda handlers themselves, on fauxqs, the scheduler
 * on start and every AUDIT_INTERVAL seconds, the worker polling in-process like Lambda's event source mapping.
 * So a `helm upgrade` against the simulated cluster shows up in the API's status, list and history by itself.
 */
import { syncRuntimeFromEnv } from "../functions/sync/deps.ts";
import { createSchedulerHandler } from "../functions/sync/scheduler.ts";
import { createSyncWorkerHandler } from "../functions/sync/worker.ts";
import type { ClusterConnector } from "../shared/clusters/connector.ts";
import { type Logger, silentLogger } from "../shared/ports.ts";
import { storeConfigFromEnv } from "../shared/store/config.ts";
import type { ReleaseStore } from "../shared/store/release-store.ts";
import { createQueueWithDlq, startLocalSqs } from "./fauxqs.ts";
import { createLocalPoller } from "./queue/poller.ts";

export interface LocalSync {
  queueUrl: string;
  /** Schedules a sync of every cluster now (what the interval does). */
  runNow(): Promise<void>;
  stop(): Promise<void>;
}

export async function startLocalSync(options: {
  env: NodeJS.ProcessEnv;
  store: ReleaseStore;
  clusters: ClusterConnector;
  intervalSeconds: number;
  out: (line: string) => void;
}): Promise<LocalSync> {
  const { env, out } = options;
  const sqs = await startLocalSqs({ port: 0 });
  const queue = await createQueueWithDlq(sqs.client, "helm-status-sync", { visibilityTimeoutSeconds: 300 });
  const storeConfig = storeConfigFromEnv(env);
  const syncEnv = {
    ...env,
    ...sqs.env,
    SYNC_QUEUE_URL: queue.queueUrl,
    AWS_ENDPOINT_URL_DYNAMODB: storeConfig.endpoint,
  };
  const overrides = { store: options.store, clusters: options.clusters, log: consoleSyncs(out) };
  const scheduler = createSchedulerHandler(syncRuntimeFromEnv(syncEnv, { needQueueUrl: true }, overrides));
  const worker = createSyncWorkerHandler(syncRuntimeFromEnv(syncEnv, {}, overrides));
  const poller = createLocalPoller({
    client: sqs.client,
    queueUrl: queue.queueUrl,
    handler: worker,
    waitTimeSeconds: 1,
    functionTimeoutMs: 300_000,
    functionName: "syncWorker",
    onError: (error) => out(`sync worker: ${(error as Error).message}`),
  });
  poller.start();
  const runNow = async () => {
    try {
      await scheduler({});
    } catch (error) {
      out(`sync scheduler: ${(error as Error).message}`);
    }
  };
  await runNow();
  const timer = setInterval(runNow, options.intervalSeconds * 1000);
  return {
    queueUrl: queue.queueUrl,
    runNow,
    async stop() {
      clearInterval(timer);
      await poller.stop();
      await sqs.stop();
    },
  };
}

/** The console shows a line per sync run that changed something (the Lambda logs every line as JSON). */
function consoleSyncs(out: (line: string) => void): Logger {
  return {
    ...silentLogger,
    info(message, attributes) {
      if (message !== "release sync finished" || !attributes) return;
      const { cluster, imported, updated, removed, failed } = attributes as Record<string, number | string>;
      if (!imported && !updated && !removed && !failed) return;
      out(`sync ${cluster}: ${imported} imported, ${updated} updated, ${removed} removed, ${failed} failed`);
    },
    warn(message, attributes) {
      out(`sync: ${message}${attributes?.error ? `: ${attributes.error}` : ""}`);
    },
  };
}
