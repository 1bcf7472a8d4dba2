import { registryScope } from "../../shared/clusters/scope.ts";
import { encodeHelmSecret } from "../../shared/release/helm-codec.ts";
import type { ReleaseStore } from "../../shared/store/release-store.ts";
import { importReleases } from "../../shared/usecases/import.ts";
import type { SimulatedEks } from "../sim/index.ts";
import { demoReleases } from "./releases.ts";

/** How long before `npm start` the demo's live objects were created. */
const LIVE_AGE_MS = 12 * 60_000;

export interface SeedSummary {
  releases: number;
  revisions: number;
  imported: number;
  unchanged: number;
}

/**
 * Puts the demo releases in the store (as Helm release Secrets through the
 * import use case, like CI would) and their live state in the simulated
 * clusters. Idempotent: a second `npm start` on the same data dir finds the
 * revisions unchanged.
 */
export async function seedDemo(store: ReleaseStore, sim: SimulatedEks): Promise<SeedSummary> {
  const summary: SeedSummary = { releases: 0, revisions: 0, imported: 0, unchanged: 0 };
  for (const demo of demoReleases()) {
    const document = { apiVersion: "v1", kind: "List", items: demo.revisions.map((r) => encodeHelmSecret(r)) };
    // The demo's clusters are the simulator's: importing for any other would be a bug of the demo.
    const clusters = registryScope(sim.clusters());
    const result = await importReleases({ store, clusters }, { cluster: demo.cluster, document });
    if (result.failed > 0) {
      throw new Error(
        `seeding ${demo.cluster}: ${JSON.stringify(result.results.filter((r) => r.outcome === "failed"))}`,
      );
    }
    summary.releases++;
    summary.revisions += demo.revisions.length;
    summary.imported += result.imported;
    summary.unchanged += result.unchanged;
    const deployed = demo.revisions.at(-1)!;
    // Live objects made a while ago, so AGE columns read like a running cluster and the
    // CrashLoopBackOff pod is older than its last restart.
    sim
      .cluster(demo.cluster)
      .materialize(deployed.manifest, { createdAt: new Date(Date.now() - LIVE_AGE_MS), ...demo.live });
  }
  return summary;
}
