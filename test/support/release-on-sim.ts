/**
 * One shop release on a one-cluster simulated EKS, for a test file: the simulator started and the release's objects
 * materialized before its tests, a KubeReader over the simulator's own kubeconfig, the release's revision 1 in a
 * memory store; reader and simulator closed after them. The status, log-excerpt and stall suites read through it.
 */
import { after, before } from "node:test";
import { type SimCluster, type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { createKubeReader, type KubeReader } from "../../shared/kube/reader.ts";
import type { Release } from "../../shared/release/model.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { simConnector } from "../status/sim-connector.ts";

/** A manifest as Helm stores it: each object a YAML document (JSON is YAML). */
export function manifestOf(objects: object[]): string {
  return objects.map((o) => `---\n${JSON.stringify(o)}\n`).join("");
}

/** A one-replica Deployment in shop whose container exits 1 (a crash loop); `annotations` steer the simulator. */
export function crashingDeployment(name: string, annotations: Record<string, string> = {}): object {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: "shop" },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name }, annotations },
        spec: { containers: [{ name: "app", image: "example/app:1.0", env: [{ name: "SIM_EXIT_CODE", value: "1" }] }] },
      },
    },
  };
}

export interface ReleaseOnSim {
  sim(): SimulatedEks;
  kube(): KubeReader;
  store: MemoryReleaseStore;
}

/**
 * `cluster` simulated with `manifest` materialized in shop (or what `arrange` does instead), and the release
 * `release` (default "app") of that manifest stored as deployed revision 1.
 */
export function releaseOnSimForFile(options: {
  cluster: string;
  manifest: string;
  release?: string;
  arrange?: (cluster: SimCluster) => void;
}): ReleaseOnSim {
  const { cluster, manifest, release = "app" } = options;
  const store = new MemoryReleaseStore();
  let sim: SimulatedEks | undefined;
  let kube: KubeReader | undefined;
  before(async () => {
    sim = await startSimulatedEks({ clusters: [{ name: cluster }] });
    const arrange = options.arrange ?? ((c: SimCluster) => c.materialize(manifest, { namespace: "shop" }));
    arrange(sim.cluster(cluster));
    kube = createKubeReader({ connector: simConnector(sim) });
    await store.putRevision(cluster, {
      name: release,
      namespace: "shop",
      version: 1,
      manifest,
      info: { status: "deployed", last_deployed: "2026-12-04T10:00:00Z", description: "Install complete" },
      chart: { metadata: { name: release, version: "0.1.0" } },
    } satisfies Release);
  });
  after(async () => {
    await kube?.close();
    await sim?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the simulated EKS is not started yet (use it inside a test or a hook)");
    return value;
  };
  return { sim: () => started(sim), kube: () => started(kube), store };
}
