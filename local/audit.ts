/**
 * The status-history pipeline in `npm start`: the planner and worker Lambda
 * handlers themselves, on fauxqs (a real SQS protocol), the planner every
 * AUDIT_INTERVAL seconds (default 60) and the worker polling in-process like
 * Lambda's event source mapping. With the demo, the `api` release recovers after
 * DEMO_API_RECOVERS_AFTER seconds (default 150: its pod stops crash-looping and
 * its deleted ConfigMap is restored), so a change shows up in the timeline.
 */

import { auditRuntimeFromEnv } from "../functions/audit/deps.ts";
import { createPlannerHandler } from "../functions/audit/planner.ts";
import { createWorkerHandler } from "../functions/audit/worker.ts";
import type { ClusterConnector } from "../shared/clusters/connector.ts";
import { type Logger, silentLogger } from "../shared/ports.ts";
import { openHistoryStores, snapshotsConfigFromEnv } from "../shared/snapshots/config.ts";
import type { HistoryStores } from "../shared/snapshots/history-stores.ts";
import { ensureSnapshotsTable } from "../shared/snapshots/table-schema.ts";
import { createDynamoDbClient, storeConfigFromEnv } from "../shared/store/config.ts";
import type { ReleaseStore } from "../shared/store/release-store.ts";
import { demoReleases } from "./demo/releases.ts";
import { startScheduledPipeline } from "./queue/scheduled-pipeline.ts";
import type { SimulatedEks } from "./sim/index.ts";

export interface LocalAudit {
  queueUrl: string;
  intervalSeconds: number;
  /** The history the audits write: what chat's `fleet`, `timeline` and `reliability` read (local/chatops.ts). */
  historyStores: HistoryStores;
  snapshotsTable: string;
  stop(): Promise<void>;
}

export async function startLocalAudit(options: {
  env: NodeJS.ProcessEnv;
  store: ReleaseStore;
  clusters: ClusterConnector;
  sim?: SimulatedEks;
  out: (line: string) => void;
}): Promise<LocalAudit> {
  const { env, out } = options;
  const intervalSeconds = auditIntervalSeconds(env);
  const recoverAfter = seconds(env, "DEMO_API_RECOVERS_AFTER", 150, 0);
  const storeConfig = storeConfigFromEnv(env);
  const snapshotsConfig = snapshotsConfigFromEnv(env);
  const client = createDynamoDbClient(storeConfig);
  try {
    await ensureSnapshotsTable(client, { ...storeConfig, tableName: snapshotsConfig.tableName });
  } finally {
    client.destroy();
  }
  const historyStores = openHistoryStores(storeConfig, snapshotsConfig);
  const pipeline = await startScheduledPipeline({
    name: "audit",
    schedulerName: "planner",
    queueUrlVariable: "AUDIT_QUEUE_URL",
    timeoutSeconds: 120,
    intervalSeconds,
    env,
    out,
    handlers(auditEnv) {
      const overrides = {
        store: options.store,
        clusters: options.clusters,
        historyStores,
        logger: consoleChanges(out),
      };
      // Each tick is its own slot (slotSeconds = AUDIT_INTERVAL, not EventBridge's minutes).
      const planner = createPlannerHandler(auditRuntimeFromEnv(auditEnv, { needQueueUrl: true }, overrides), {
        slotSeconds: intervalSeconds,
      });
      return {
        async schedule() {
          const result = await planner({ time: new Date().toISOString() });
          if (!result.alreadyPlanned) {
            out(
              `audit ${result.run.runId}: ${result.run.planned} releases planned over ${result.run.clusters.join(", ")}`,
            );
          }
        },
        worker: createWorkerHandler(auditRuntimeFromEnv(auditEnv, {}, overrides)),
      };
    },
  });
  let recovery: NodeJS.Timeout | undefined;
  if (options.sim && recoverAfter > 0) {
    recovery = setTimeout(() => {
      const api = demoReleases().find((d) => d.cluster === "demo-eu" && d.revisions.at(-1)!.name === "api");
      if (!api) return;
      options.sim!.cluster("demo-eu").materialize(api.revisions.at(-1)!.manifest, { namespace: "shop" });
      out("demo: shop/api on demo-eu recovered (pod ready, ConfigMap restored); the next audit records the change");
    }, recoverAfter * 1000);
  }
  return {
    queueUrl: pipeline.queueUrl,
    intervalSeconds,
    historyStores,
    snapshotsTable: snapshotsConfig.tableName,
    async stop() {
      if (recovery) clearTimeout(recovery);
      await pipeline.stop();
    },
  };
}

/** AUDIT_INTERVAL (default 60 s, at least 5): the audits' period in `npm start`, and the release sync's. */
export function auditIntervalSeconds(env: NodeJS.ProcessEnv): number {
  return seconds(env, "AUDIT_INTERVAL", 60, 5);
}

/** The console shows the change events only (the Lambda logs every line as JSON). */
function consoleChanges(out: (line: string) => void): Logger {
  return {
    ...silentLogger,
    info(_message, attributes) {
      if (attributes?.event !== "release-changed") return;
      const changes = (attributes.changes as string[] | undefined)?.join("; ") ?? "";
      out(
        `change: ${attributes.namespace}/${attributes.release} on ${attributes.cluster}: ${attributes.from} -> ${attributes.to} (${changes}) snapshot ${attributes.snapshotId}`,
      );
    },
    warn(message, attributes) {
      out(`audit: ${message}${attributes?.error ? `: ${attributes.error}` : ""}`);
    },
  };
}

function seconds(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d{1,6}$/.test(raw) || Number(raw) < min) {
    throw new Error(`${name}=${JSON.stringify(raw)} must be a whole number of seconds >= ${min}`);
  }
  return Number(raw);
}
