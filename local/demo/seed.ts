import { parseAllDocuments } from "yaml";
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
 * import use case, like CI would) and their live state and Helm storage Secrets
 * in the simulated clusters. Idempotent: a second `npm start` on the same data dir finds the
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
    const cluster = sim.cluster(demo.cluster);
    cluster.materialize(deployed.manifest ?? "", { createdAt: new Date(Date.now() - LIVE_AGE_MS), ...demo.live });
    // And Helm's own storage, as helm install/upgrade left it: what the release sync reads (docs/sync.md).
    cluster.apply(document.items);
    if (deployed.name === "web") changeBehindHelm(cluster, deployed.manifest ?? "", demo.live?.namespace);
  }
  return summary;
}

/**
 * One change behind Helm's back, so the demo shows drift: Helm 4 owns web's objects (server-side apply), then
 * someone ran `kubectl patch configmap web-config -p '{"data":{"LOG_LEVEL":"debug"}}'` (docs/drift.md).
 */
function changeBehindHelm(cluster: ReturnType<SimulatedEks["cluster"]>, manifest: string, namespace = "default") {
  const withNamespace = parseAllDocuments(manifest)
    .map((doc) => doc.toJS() as { metadata?: { namespace?: string } } | null)
    .filter((object): object is { metadata?: { namespace?: string } } => object !== null)
    .map((object) => ({
      ...object,
      // What Helm 4 adds to every object it applies (and so owns).
      metadata: {
        ...object.metadata,
        namespace: object.metadata?.namespace ?? namespace,
        labels: { ...(object.metadata as { labels?: object })?.labels, "app.kubernetes.io/managed-by": "Helm" },
        annotations: {
          ...(object.metadata as { annotations?: object })?.annotations,
          "meta.helm.sh/release-name": "web",
          "meta.helm.sh/release-namespace": namespace,
        },
      },
    }));
  cluster.applyAs("helm", withNamespace);
  cluster.updateAs("kubectl-patch", { apiVersion: "v1", kind: "ConfigMap", name: "web-config", namespace }, (cm) => {
    (cm.data as Record<string, string>).LOG_LEVEL = "debug";
  });
}
