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
import type { ReleaseStore } from "../shared/store/release-store.ts";
import { startScheduledPipeline } from "./queue/scheduled-pipeline.ts";

export interface LocalSync {
  stop(): Promise<void>;
}

export async function startLocalSync(options: {
  env: NodeJS.ProcessEnv;
  store: ReleaseStore;
  clusters: ClusterConnector;
  intervalSeconds: number;
  out: (line: string) => void;
}): Promise<LocalSync> {
  const { out } = options;
  const pipeline = await startScheduledPipeline({
    name: "sync",
    schedulerName: "scheduler",
    queueUrlVariable: "SYNC_QUEUE_URL",
    timeoutSeconds: 300,
    intervalSeconds: options.intervalSeconds,
    env: options.env,
    out,
    handlers(syncEnv) {
      const overrides = { store: options.store, clusters: options.clusters, logger: consoleSyncs(out) };
      const scheduler = createSchedulerHandler(syncRuntimeFromEnv(syncEnv, { needQueueUrl: true }, overrides));
      return {
        schedule: () => scheduler({}),
        worker: createSyncWorkerHandler(syncRuntimeFromEnv(syncEnv, {}, overrides)),
      };
    },
  });
  return { stop: pipeline.stop };
}

/** The console shows a line per sync run that changed something (the Lambda logs every line as JSON). */
function consoleSyncs(out: (line: string) => void): Logger {
  return {
    ...silentLogger,
    info(message, attributes) {
      if (message === "attributions settled" && attributes) {
        const { cluster, found, retrying, notFound, failed } = attributes as Record<string, number | string>;
        out(
          `who ${cluster}: ${found} attributed, ${retrying} not in the audit log yet, ${notFound} not found, ${failed} failed`,
        );
        return;
      }
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
