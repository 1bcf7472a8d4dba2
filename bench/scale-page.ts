/**
 * The fleet page's reads at a size (issue #36): the rows the dashboard's first render waits for (`counts=false`:
 * the FLEET index when it serves, else the join), read cold twice, and the counts (the join), each with the read
 * units DynamoDB reported and its time. A read that fails at a size is the figure, not the end of the run.
 */
import { FleetCache, type FleetDeps, fleetReleases } from "../shared/usecases/fleet.ts";
import { delta, type MeteringProxy } from "./scale-meter.ts";

export interface FleetPageFigures {
  rowsColdMs: number;
  rowsWarmMs: number;
  countsMs: number;
  rowsRru: number;
  countsRru: number;
  /** Reads that failed (their ms is the time to the failure). */
  errors: string[];
}

export async function measureFleetPage(
  deps: Omit<FleetDeps, "cache">,
  dynamo: MeteringProxy,
): Promise<FleetPageFigures> {
  const timedRead = async (read: () => Promise<unknown>) => {
    const before = dynamo.snapshot();
    const started = performance.now();
    let error: string | undefined;
    try {
      await read();
    } catch (failure) {
      error = `${(failure as Error).name}: ${(failure as Error).message}`.slice(0, 160);
    }
    return { ms: performance.now() - started, rru: delta(dynamo.snapshot(), before).readUnits, error };
  };
  // A fresh FleetCache each time: a cold API function (nothing held).
  const rowsCold = await timedRead(() => fleetReleases({ ...deps, cache: new FleetCache() }, { counts: false }));
  const rowsWarm = await timedRead(() => fleetReleases({ ...deps, cache: new FleetCache() }, { counts: false }));
  const counts = await timedRead(() => fleetReleases({ ...deps, cache: new FleetCache() }, {}));
  return {
    rowsColdMs: rowsCold.ms,
    rowsWarmMs: rowsWarm.ms,
    countsMs: counts.ms,
    rowsRru: rowsCold.rru,
    countsRru: counts.rru,
    errors: [rowsCold, rowsWarm, counts].flatMap((read, i) =>
      read.error ? [`${["rows (cold)", "rows (again)", "counts"][i]}: ${read.error}`] : [],
    ),
  };
}
