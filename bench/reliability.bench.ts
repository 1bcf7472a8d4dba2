/**
 * `npm run bench -- reliability`: what the reliability report reads and the audits write for it, on DynamoDB Local
 * (prints, never asserts):
 *   - one release over 90 days that changed 50 times (51 run-length snapshots): items DynamoDB read, requests, time;
 *   - write units per audit with and without the per-day rollups (stable runs and a run where every release
 *     changes; 20-resource releases in messages of 10, as the worker records them);
 *   - a fleet report over N releases x 30 days from the rollups (BENCH_RELIABILITY_RELEASES, default 10,000, over
 *     BENCH_RELIABILITY_CLUSTERS clusters, default 50): items read, requests, time; one cluster; one namespace.
 * The single release's snapshots are written straight through the store's `create` with their seen counts (a
 * 90-day history at 5-minute audits would be 25,920 writes); the fleet's rollups are folded by the worker's code
 * from its sightings (bench/rollup-history.ts). Bounded: every wait has a deadline (WATCHDOG_MS).
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { startDynamoDbLocal } from "../local/dynamodb-local.ts";
import type { HealthStatus } from "../shared/health/index.ts";
import type { ReleaseKey } from "../shared/release/model.ts";
import { dynamoDbHistoryStores } from "../shared/snapshots/history-stores.ts";
import { ensureSnapshotsTable } from "../shared/snapshots/table-schema.ts";
import { reliabilityOfRelease } from "../shared/usecases/reliability.ts";
import { reliabilityOfScope } from "../shared/usecases/reliability-scope.ts";
import { machineLoad, startWatchdog } from "./lib.ts";
import { rollupFleet, writeHistory as writeStretches, writeUnitsPerAudit } from "./rollup-history.ts";

const FLEET = Number(process.env.BENCH_RELIABILITY_RELEASES ?? 10_000);
const CLUSTERS = Number(process.env.BENCH_RELIABILITY_CLUSTERS ?? 50);
const WATCHDOG_MS = 15 * 60_000;
const MIN = 60_000;
const DAY = 86_400_000;
const INTERVAL = 5 * MIN;

startWatchdog("reliability bench", WATCHDOG_MS);

const out = (line = "") => process.stdout.write(`${line}\n`);
out(
  `reliability bench: one release x 90 days x 50 changes; write units per audit; a fleet of ${FLEET} releases x 30 days on ${CLUSTERS} clusters`,
);
out(`machine: ${machineLoad()}`);

const dynamo = await startDynamoDbLocal();
try {
  const location = {
    region: "us-east-1",
    endpoint: dynamo.endpoint,
    credentials: { accessKeyId: "bench", secretAccessKey: "bench" },
  };
  const admin = new DynamoDBClient(location);
  await ensureSnapshotsTable(admin, { ...location, tableName: "bench-reliability" });
  await ensureSnapshotsTable(admin, { ...location, tableName: "bench-reliability-writes" });
  // Every read DynamoDB answers, counted where the SDK hands back the response: items examined (ScannedCount for a
  // Query, 1 for a GetItem that found one) and requests.
  const reads = { requests: 0, items: 0 };
  admin.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      const output = (result.output ?? {}) as { ScannedCount?: number; Item?: unknown };
      if (output.ScannedCount !== undefined || "Item" in output) {
        reads.requests += 1;
        reads.items += output.ScannedCount ?? (output.Item ? 1 : 0);
      }
      return result;
    },
    { step: "initialize", name: "countReads" },
  );
  const client = DynamoDBDocumentClient.from(admin, { marshallOptions: { removeUndefinedValues: true } });
  const now = Date.parse("2026-12-01T00:00:00Z");
  const history = dynamoDbHistoryStores({ client, tableName: "bench-reliability", ...location });
  const writes = dynamoDbHistoryStores({ client, tableName: "bench-reliability-writes", ...location });
  const deps = {
    snapshots: history.snapshots,
    rollups: history.rollups,
    clusters: "any" as const,
    clock: { now: () => new Date(now) },
    settings: { auditIntervalSeconds: INTERVAL / 1000, retentionDays: 90 },
  };

  /** A history of `changes + 1` snapshots evenly over [from, now), Failed every fourth, a new revision every other. */
  async function writeHistory(release: ReleaseKey, from: number, changes: number): Promise<void> {
    const stretch = Math.floor((now - from) / (changes + 1) / INTERVAL) * INTERVAL;
    const stretches = Array.from({ length: changes + 1 }, (_, i) => ({
      from: from + i * stretch,
      to: from + (i + 1) * stretch,
      health: (i % 4 === 3 ? "Failed" : "Current") as HealthStatus,
      revision: 1 + Math.floor(i / 2),
    }));
    await writeStretches(history, release, stretches);
  }

  const measure = async <T>(what: () => Promise<T>) => {
    const before = { ...reads };
    const started = performance.now();
    const result = await what();
    return {
      result,
      ms: performance.now() - started,
      requests: reads.requests - before.requests,
      items: reads.items - before.items,
    };
  };

  const single = { cluster: "bench", namespace: "long", name: "changes" };
  await writeHistory(single, now - 90 * DAY, 50);
  const one = await measure(() => reliabilityOfRelease(deps, single, { since: "90d" }));
  out();
  out("one release, 90 days, 50 changes (51 snapshots):");
  out(
    `  read ${one.items} items in ${one.requests} requests, ${one.ms.toFixed(0)} ms; availability ${(one.result.availability! * 100).toFixed(2)}%, coverage ${(one.result.coverage * 100).toFixed(2)}%, ${one.result.incidents.count} incidents, ${one.result.deploys.count} deploys`,
  );

  out();
  out("write units per audit (20-resource releases, messages of 10; ConsumedCapacity, indexes included):");
  const measureUnits = (withRollups: boolean) =>
    writeUnitsPerAudit(writes, {
      releases: 200,
      runs: 3,
      withRollups,
      label: withRollups ? "with" : "without",
      start: now - 2 * DAY,
    });
  const units = { withRollups: await measureUnits(true), without: await measureUnits(false) };
  for (const [label, u] of Object.entries(units)) {
    out(
      `  ${label === "without" ? "without rollups" : "with rollups   "}: unchanged ${u.stable.toFixed(2)} WCU (${u.stableItems.toFixed(2)} items), changed ${u.changed.toFixed(2)} WCU; a message's completion ${u.perMessage.toFixed(2)} WCU`,
    );
  }
  const extra = units.withRollups.stable - units.without.stable;
  out(
    `  -> the rollups add ${extra.toFixed(2)} WCU per unchanged audit (${((extra / units.without.stable) * 100).toFixed(1)}%), ${(units.withRollups.changed - units.without.changed).toFixed(2)} per changed one`,
  );

  const shape = { releases: FLEET, clusters: CLUSTERS, namespacesPerCluster: 10, days: 30, now };
  const started = performance.now();
  const unhealthy = await rollupFleet(history, shape);
  for (const { release, stretches } of unhealthy) await writeStretches(history, release, stretches);
  out();
  out(
    `fleet: rollups of ${FLEET} releases x 30 days folded and written, and ${unhealthy.length} unhealthy releases' snapshots, in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
  const sample = (
    await history.rollups.rollups([new Date(now - DAY).toISOString().slice(0, 10)], "c0", new Date(now))
  )[0];
  const bytes = Object.entries(sample?.values ?? {}).reduce(
    (sum, [name, v]) => sum + name.length + String(v).length,
    0,
  );
  out(
    `  a cluster-day item (c0, ${FLEET / CLUSTERS} releases in 10 namespaces): ${Object.keys(sample?.values ?? {}).length} figures, ≈ ${(bytes / 1024).toFixed(2)} KB`,
  );
  const fleet = await measure(() => reliabilityOfScope(deps, { since: "30d" }));
  out(
    `  fleet report over 30 days: read ${fleet.items} items in ${fleet.requests} requests, ${fleet.ms.toFixed(0)} ms; ${fleet.result.releases} releases, availability ${(fleet.result.availability! * 100).toFixed(4)}%, coverage ${(fleet.result.coverage * 100).toFixed(2)}%, ${fleet.result.incidents.count} incidents, ${fleet.result.deploys.count} deploys; worst: ${fleet.result.worst.length} rows`,
  );
  const cluster = await measure(() => reliabilityOfScope(deps, { since: "30d", cluster: "c7" }));
  out(
    `  one cluster (${cluster.result.releases} releases): read ${cluster.items} items in ${cluster.requests} requests, ${cluster.ms.toFixed(0)} ms`,
  );
  const namespace = await measure(() => reliabilityOfScope(deps, { since: "30d", namespace: "ns-3" }));
  out(
    `  one namespace across clusters (${namespace.result.releases} releases): read ${namespace.items} items in ${namespace.requests} requests, ${namespace.ms.toFixed(0)} ms`,
  );
  admin.destroy();
} finally {
  await dynamo.stop();
}
