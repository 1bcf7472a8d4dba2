/** The scale bench's faults (issue #36): what docs/scale.md "Faults at scale" reports the cost of. */
import { fleetAccount } from "../local/sim/fleet.ts";
import type { Fleet } from "./scale-fleet.ts";

/**
 * Applied after the import (the store knows every release): one cluster in 100 unreachable (its API server
 * stopped; at least one, spread over the fleet, never fleet-0001), the third account revoked (its roles and
 * sessions), DescribeCluster throttled until the caller ends it; fleet-0001 was seeded with `big` releases.
 */
export async function injectFaults(
  fleet: Fleet,
  big: number,
  log: (line: string) => void,
): Promise<Record<string, string[]>> {
  const count = Math.max(1, Math.round(fleet.names.length / 100));
  const unreachable = Array.from(
    { length: count },
    (_, k) => fleet.names[Math.floor(((k + 0.5) * fleet.names.length) / count)],
  );
  for (const name of unreachable) await fleet.sim.cluster(name).stopApiServer();
  const accounts = Math.ceil(fleet.names.length / 10);
  const revokedAccount = fleetAccount(accounts > 2 ? 2 : 0);
  const revoked = fleet.names.filter((_, i) => fleetAccount(i % accounts) === revokedAccount);
  await fleet.sim.revokeAccount(revokedAccount);
  await fleet.sim.aws.throttleFor("DescribeCluster", 60_000);
  log(
    `  faults: ${unreachable.length} unreachable, ${revoked.length} clusters of a revoked account, DescribeCluster throttled, fleet-0001 with ${big} releases`,
  );
  return { unreachable, revoked, big: ["fleet-0001"] };
}
