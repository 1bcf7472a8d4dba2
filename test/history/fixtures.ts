/** Observations for the history tests: a release seen healthy, then with a crash-looping pod. */
import { type RecordResult, recordObservation, rollupFiguresOf } from "../../shared/audit/record.ts";
import type { HistoryStores } from "../../shared/snapshots/history-stores.ts";
import { type Observation, runIdTime } from "../../shared/snapshots/model.ts";
import { defaultRules } from "../../shared/snapshots/reliability.ts";
import { rollupAdds } from "../../shared/snapshots/rollup-items.ts";

let names = 0;
export function uniqueRelease(cluster = "eu") {
  names += 1;
  return { cluster, namespace: "shop", name: `app-${process.pid}-${names}` };
}

export function observe(
  release: { cluster: string; namespace: string; name: string },
  runId: string,
  overrides: Partial<Observation> & { podHealth?: "Current" | "Failed"; restarts?: string } = {},
): Observation {
  const { podHealth = "Current", restarts = "0", ...rest } = overrides;
  const failed = podHealth === "Failed";
  return {
    release,
    runId,
    observedAt: runIdTime(runId).toISOString(),
    revision: 2,
    releaseStatus: "deployed",
    health: failed
      ? { overall: "Failed", message: "1 of 2 resources not Current: 1 Failed" }
      : { overall: "Current", message: "2 resources Current" },
    resources: [
      { apiVersion: "v1", kind: "Service", name: "api", namespace: "shop", health: "Current", message: "", cells: {} },
      {
        apiVersion: "v1",
        kind: "Pod",
        name: "api-1",
        namespace: "shop",
        health: podHealth,
        message: failed ? "CrashLoopBackOff" : "Running",
        cells: { READY: failed ? "0/1" : "1/1", STATUS: failed ? "CrashLoopBackOff" : "Running", RESTARTS: restarts },
      },
    ],
    missing: [],
    counters: { resources: 2, missing: 0, requests: 2, retries: 0, durationMs: 5 },
    text: `NAME: ${release.name}\nHEALTH: ${podHealth}\n`,
    ...rest,
  };
}

/** Run ids of 2026-01-01, N minutes after midnight. */
export function run(minutes: number, suffix?: string): string {
  const at = new Date(Date.parse("2026-01-01T00:00:00Z") + minutes * 60_000);
  const id = at
    .toISOString()
    .replace(/\.\d{3}Z$/, "Z")
    .replace(/[-:]/g, "");
  return suffix ? `${id}-${suffix}` : id;
}

/** "Now" for reads: shortly after the runs above. */
export const NOW = new Date("2026-01-02T00:00:00Z");

/**
 * Records an observation as the audit worker does, with its rollups: the snapshot, then its message (one per
 * release and run here) completed with what the sighting adds to the day items (shared/usecases/audit-release.ts).
 */
export async function recordAudited(
  stores: Pick<HistoryStores, "snapshots" | "auditRuns">,
  observation: Observation,
  retentionDays = 90,
): Promise<RecordResult> {
  const rules = defaultRules(300_000);
  const result = await recordObservation(stores.snapshots, observation, retentionDays, { rules });
  const { runId, release, observedAt } = observation;
  const figures = await rollupFiguresOf(stores.snapshots, result, runId, new Date(observedAt), rules);
  await stores.auditRuns.startRun(runId, observedAt);
  const part = `${release.cluster}.${release.namespace}.${release.name}`;
  const tally = { done: 1, failed: 0, unhealthy: 0, changed: 0 };
  await stores.auditRuns.completeMessage(
    runId,
    part,
    tally,
    observedAt,
    rollupAdds(release.cluster, figures ? [{ release, figures }] : []),
  );
  return result;
}
