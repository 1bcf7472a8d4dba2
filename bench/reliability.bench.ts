/**
 * `npm run bench -- reliability`: what the reliability report reads on DynamoDB Local (prints, never asserts):
 *   - one release over 90 days that changed 50 times (51 run-length snapshots): items DynamoDB read, requests, time;
 *   - a fleet report over N releases x 30 days (BENCH_RELIABILITY_RELEASES, default 2,000: the per-report bound of
 *     the per-release path; each release has 3 snapshots in the window): items read, requests, time, and the
 *     same per release, to extrapolate to 10,000;
 *   - the write units the audit pays for reliability (none: the report reads what the audit already writes).
 * The snapshots are written straight through the store's `create` with their seen counts (a 90-day history at
 * 5-minute audits would be 25,920 writes per release), so the report sees a fully covered history.
 * Bounded: every wait has a deadline (WATCHDOG_MS).
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { startDynamoDbLocal } from "../local/dynamodb-local.ts";
import type { ReleaseKey } from "../shared/release/model.ts";
import { DynamoDbSnapshotStore } from "../shared/snapshots/dynamodb-snapshot-store.ts";
import { type Observation, runIdFor, type Snapshot, snapshotIdOf } from "../shared/snapshots/model.ts";
import { ensureSnapshotsTable } from "../shared/snapshots/table-schema.ts";
import { reliabilityOfRelease } from "../shared/usecases/reliability.ts";
import { reliabilityOfScope } from "../shared/usecases/reliability-scope.ts";
import { machineLoad } from "./lib.ts";

const FLEET = Number(process.env.BENCH_RELIABILITY_RELEASES ?? 2000);
const WATCHDOG_MS = 15 * 60_000;
const MIN = 60_000;
const DAY = 86_400_000;
const INTERVAL = 5 * MIN;

const watchdog = setTimeout(() => {
  process.stderr.write(`reliability bench: over ${WATCHDOG_MS / 60_000} minutes, giving up\n`);
  process.exit(2);
}, WATCHDOG_MS);
watchdog.unref();

const out = (line = "") => process.stdout.write(`${line}\n`);
out(`reliability bench: one release x 90 days x 50 changes; a fleet of ${FLEET} releases x 30 days`);
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
  const snapshots = new DynamoDbSnapshotStore({ client, tableName: "bench-reliability", ...location });
  const deps = {
    snapshots,
    clusters: "any" as const,
    clock: { now: () => new Date(now) },
    settings: { auditIntervalSeconds: INTERVAL / 1000, retentionDays: 90 },
  };

  /** A history of `changes + 1` snapshots evenly over [from, now), alternating Current and Failed every other. */
  async function writeHistory(release: ReleaseKey, from: number, changes: number): Promise<void> {
    const stretch = Math.floor((now - from) / (changes + 1) / INTERVAL) * INTERVAL;
    let previous: Snapshot | undefined;
    for (let i = 0; i <= changes; i++) {
      const first = from + i * stretch;
      const last = first + stretch - INTERVAL;
      const failed = i % 4 === 3;
      const runId = runIdFor(new Date(first));
      const observation: Omit<Observation, "observedAt" | "text"> = {
        release,
        runId,
        revision: 1 + Math.floor(i / 2),
        releaseStatus: "deployed",
        health: failed ? { overall: "Failed", message: "1 Failed" } : { overall: "Current", message: "" },
        resources: [],
        missing: [],
        counters: { resources: 0, missing: 0, requests: 0, retries: 0, durationMs: 0 },
      };
      const next: Snapshot & { text: string } = {
        ...observation,
        id: snapshotIdOf(release, runId),
        firstSeenAt: new Date(first).toISOString(),
        lastSeenAt: new Date(last).toISOString(),
        seenCount: (last - first) / INTERVAL + 1,
        lastRunId: runIdFor(new Date(last)),
        digest: `d${i}`,
        changes: [],
        expiresAt: Math.floor((last + 90 * DAY) / 1000),
        text: `NAME: ${release.name}\n`,
        ...(previous ? { previousId: previous.id } : {}),
      };
      if ((await snapshots.create(next, previous)) !== "ok") throw new Error(`could not write ${next.id}`);
      previous = next;
    }
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

  const started = performance.now();
  const queue = Array.from({ length: FLEET }, (_, i) => ({ cluster: `c${i % 50}`, namespace: "fleet", name: `r${i}` }));
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let release = queue.pop(); release; release = queue.pop()) await writeHistory(release, now - 30 * DAY, 2);
    }),
  );
  out();
  out(`fleet: ${FLEET} releases x 3 snapshots written in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  const fleet = await measure(() => reliabilityOfScope(deps, { since: "30d" }));
  out(
    `  fleet report over 30 days: read ${fleet.items} items in ${fleet.requests} requests, ${(fleet.ms / 1000).toFixed(1)} s (${(fleet.items / FLEET).toFixed(2)} items, ${(fleet.requests / FLEET).toFixed(2)} requests per release)`,
  );
  out(
    `  extrapolated to 10,000 releases: ~${Math.round((fleet.items / FLEET) * 10_000)} items, ~${((fleet.ms / FLEET) * 10).toFixed(0)} s (refused today: over the 2,000-release bound, see docs/history.md)`,
  );
  const cluster = await measure(() => reliabilityOfScope(deps, { since: "30d", cluster: "c7" }));
  out(
    `  one cluster (${cluster.result.releases} releases): read ${cluster.items} items in ${cluster.requests} requests, ${cluster.ms.toFixed(0)} ms`,
  );
  out();
  out("write units per audit for reliability: 0 (the report reads the snapshots the audit writes anyway; no rollups)");
  admin.destroy();
} finally {
  await dynamo.stop();
}
