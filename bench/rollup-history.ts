/**
 * The reliability bench's synthetic fleets (bench/reliability.bench.ts):
 *   - `rollupFleet`: the per-day rollups of N releases x D days as the worker would have added them, folded with the
 *     worker's own code (foldSighting, rollupAdds) over each release's sightings, written one cluster at a time
 *     through completeMessage; and the snapshots of the releases that had an incident (the worst list reads them);
 *   - `writeUnitsPerAudit`: stable and changing audit runs recorded as the worker records them (recordObservation,
 *     rollupFiguresOf, completeMessage per message of 10), with and without the rollups, write units counted from
 *     DynamoDB's ConsumedCapacity.
 */
import { recordObservation, rollupFiguresOf } from "../shared/audit/record.ts";
import type { HealthStatus } from "../shared/health/index.ts";
import type { ReleaseKey } from "../shared/release/model.ts";
import type { dynamoDbHistoryStores } from "../shared/snapshots/history-stores.ts";
import { type Observation, runIdFor, type Snapshot, snapshotIdOf } from "../shared/snapshots/model.ts";
import { defaultRules } from "../shared/snapshots/reliability.ts";
import { foldSighting, type SightingBefore, type SightingFigures } from "../shared/snapshots/rollup.ts";
import { rollupAdds } from "../shared/snapshots/rollup-items.ts";

/** The history's five stores on one DynamoDB table, with its write figures. */
type DynamoDbHistory = ReturnType<typeof dynamoDbHistoryStores>;

const MIN = 60_000;
const DAY = 86_400_000;
const tally = { done: 10, failed: 0, unhealthy: 0, changed: 0 };

export interface FleetShape {
  releases: number;
  clusters: number;
  namespacesPerCluster: number;
  days: number;
  now: number;
}

export interface Stretch {
  from: number;
  to: number;
  health: HealthStatus;
  revision: number;
}

export const fleetRelease = (i: number, shape: FleetShape): ReleaseKey => ({
  cluster: `c${i % shape.clusters}`,
  namespace: `ns-${Math.floor(i / shape.clusters) % shape.namespacesPerCluster}`,
  name: `r${i}`,
});

/** Every 100th release fails for 30 minutes once (at a different time each); every release deploys every 10 days. */
function changesOf(
  i: number,
  from: number,
  shape: FleetShape,
): { at: number; health: HealthStatus; revision: number }[] {
  const changes: { at: number; health: HealthStatus; revision: number }[] = [];
  let revision = 2;
  for (let at = from + ((i * 7919) % 10) * DAY + 3_600_000; at < shape.now; at += 10 * DAY) {
    revision += 1;
    changes.push({ at, health: "Current", revision });
  }
  if (i % 100 === 0) {
    const failAt = from + (((i / 100) * 104_729) % (shape.days - 1)) * DAY + 7 * 3_600_000;
    const last = (t: number) => changes.filter((c) => c.at <= t).at(-1)?.revision ?? 2;
    changes.push({ at: failAt, health: "Failed", revision: last(failAt) });
    changes.push({ at: failAt + 30 * MIN, health: "Current", revision: last(failAt) });
  }
  return changes.sort((a, b) => a.at - b.at);
}

/**
 * The rollups of the fleet, folded from sightings every 6 hours plus one at each change (with the rules' audit
 * interval at 6 hours, so every stretch between them is covered: the figures of a fully audited fleet without
 * folding 8,640 sightings per release), written per cluster. Answers the releases that had an incident.
 */
export async function rollupFleet(
  store: DynamoDbHistory,
  shape: FleetShape,
): Promise<{ release: ReleaseKey; stretches: Stretch[] }[]> {
  const rules = defaultRules(6 * 3_600_000);
  const from = shape.now - shape.days * DAY;
  const perCluster = new Map<string, { release: ReleaseKey; figures: SightingFigures }[]>();
  const unhealthy: { release: ReleaseKey; stretches: Stretch[] }[] = [];
  for (let i = 0; i < shape.releases; i++) {
    const release = fleetRelease(i, shape);
    const changes = changesOf(i, from, shape);
    // Installed before the window (revision 2 at its start: no install inside it).
    const stretches: Stretch[] = [{ from, to: shape.now, health: "Current", revision: 2 }];
    for (const c of changes) {
      stretches.at(-1)!.to = c.at;
      stretches.push({ from: c.at, to: shape.now, health: c.health, revision: c.revision });
    }
    if (changes.some((c) => c.health !== "Current")) unhealthy.push({ release, stretches });
    const times = new Set(changes.map((c) => c.at));
    for (let at = from; at < shape.now; at += 6 * 3_600_000) times.add(at);
    const figures = perCluster.get(release.cluster) ?? [];
    let before: SightingBefore | undefined;
    for (const at of [...times].sort((a, b) => a - b)) {
      const { health, revision } = stretches.findLast((s) => s.from <= at)!;
      const created = !before || health !== before.health || revision !== before.revision;
      const folded = foldSighting({ health, revision, at, created, ...(before ? { before } : {}) }, rules);
      figures.push({ release, figures: folded });
      const firstSeenAt = created || !before ? at : before.firstSeenAt;
      before = { health, revision, firstSeenAt, lastSeenAt: at, state: created ? folded.state : before!.state };
    }
    perCluster.set(release.cluster, figures);
  }
  const runId = runIdFor(new Date(shape.now - 60_000), "rollups");
  await store.auditRuns.startRun(runId, new Date(shape.now).toISOString());
  for (const [cluster, sightings] of perCluster) {
    const adds = rollupAdds(cluster, sightings);
    await store.auditRuns.completeMessage(runId, `bench-${cluster}`, tally, new Date(shape.now).toISOString(), adds);
  }
  return unhealthy;
}

function resources(count: number): Observation["resources"] {
  return Array.from({ length: count }, (_, i) => ({
    apiVersion: i % 2 ? "apps/v1" : "v1",
    kind: ["ServiceAccount", "ConfigMap", "Service", "Deployment"][i % 4],
    name: `app-${Math.floor(i / 4)}`,
    namespace: "shop",
    health: "Current" as HealthStatus,
    message: "",
    cells: {},
  }));
}

/**
 * Write units per audit as the worker pays them: `releases` releases of 20 resources in messages of 10 (one cluster
 * each, 10 namespaces), a first run, then `runs` stable runs and one run where every release changes.
 */
export async function writeUnitsPerAudit(
  store: DynamoDbHistory,
  options: { releases: number; runs: number; withRollups: boolean; label: string; start: number },
): Promise<{ stable: number; changed: number; stableItems: number; perMessage: number }> {
  const rules = defaultRules(5 * MIN);
  const releases = Array.from({ length: options.releases }, (_, i) => ({
    cluster: `w${options.label}-${i % 2}`,
    namespace: `ns-${i % 10}`,
    name: `r${i}`,
  }));
  const completion = { units: 0, messages: 0 };
  const audit = async (run: number, revision: number) => {
    const at = new Date(options.start + run * 5 * MIN);
    const runId = runIdFor(at);
    await store.auditRuns.startRun(runId, at.toISOString());
    for (const cluster of new Set(releases.map((r) => r.cluster))) {
      const mine = releases.filter((r) => r.cluster === cluster);
      for (let m = 0; m * 10 < mine.length; m++) {
        const sightings: { release: ReleaseKey; figures: SightingFigures }[] = [];
        for (const release of mine.slice(m * 10, m * 10 + 10)) {
          const observation: Observation = {
            release,
            runId,
            observedAt: at.toISOString(),
            revision,
            releaseStatus: "deployed",
            health: { overall: "Current", message: "20 resources Current" },
            resources: resources(20),
            missing: [],
            counters: { resources: 20, missing: 0, requests: 20, retries: 0, durationMs: 50 },
            text: `NAME: ${release.name}\nREVISION: ${revision}\n${"x".repeat(2000)}`,
          };
          const result = await recordObservation(store.snapshots, observation, 90, { rules });
          const figures = await rollupFiguresOf(store.snapshots, result, runId, at, rules);
          if (figures) sightings.push({ release, figures });
        }
        const adds = options.withRollups ? rollupAdds(cluster, sightings) : [];
        const units = store.stats.writeUnits;
        await store.auditRuns.completeMessage(runId, `${cluster}-${m}`, tally, at.toISOString(), adds);
        completion.units += store.stats.writeUnits - units;
        completion.messages += 1;
      }
    }
  };
  await audit(0, 1);
  const before = { ...store.stats };
  Object.assign(completion, { units: 0, messages: 0 });
  for (let run = 1; run <= options.runs; run++) await audit(run, 1);
  const stable = (store.stats.writeUnits - before.writeUnits) / (options.runs * options.releases);
  const stableItems = (store.stats.items - before.items) / (options.runs * options.releases);
  const perMessage = completion.units / completion.messages;
  const beforeChange = { ...store.stats };
  await audit(options.runs + 1, 2);
  const changed = (store.stats.writeUnits - beforeChange.writeUnits) / options.releases;
  return { stable, changed, stableItems, perMessage };
}

/** One run-length snapshot per stretch, audited every 5 minutes from its start to its end. */
export async function writeHistory(store: DynamoDbHistory, release: ReleaseKey, stretches: Stretch[]) {
  let previous: Snapshot | undefined;
  for (const [i, s] of stretches.entries()) {
    const runId = runIdFor(new Date(s.from));
    const last = s.to - 5 * MIN;
    const next: Snapshot & { text: string } = {
      release,
      runId,
      revision: s.revision,
      releaseStatus: "deployed",
      health: { overall: s.health, message: s.health },
      resources: [],
      missing: [],
      counters: { resources: 0, missing: 0, requests: 0, retries: 0, durationMs: 0 },
      id: snapshotIdOf(release, runId),
      firstSeenAt: new Date(s.from).toISOString(),
      lastSeenAt: new Date(last).toISOString(),
      seenCount: Math.max(1, (last - s.from) / (5 * MIN) + 1),
      lastRunId: runIdFor(new Date(last)),
      digest: `d${i}`,
      changes: [],
      expiresAt: Math.floor((last + 90 * DAY) / 1000),
      text: `NAME: ${release.name}\n`,
      ...(previous ? { previousId: previous.id } : {}),
    };
    if ((await store.snapshots.create(next, previous)) !== "ok") throw new Error(`could not write ${next.id}`);
    previous = next;
  }
}
