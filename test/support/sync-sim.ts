/**
 * The release sync against one simulated cluster, as the sync suites set it up: the simulator and its reader for
 * the file (registered as its before/after hooks), empty stores and a cluster without faults or deny rules for
 * each test (`fresh`), and the sync of that cluster over given stores.
 */
import { after, before } from "node:test";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { createKubeReader, type KubeReader } from "../../shared/kube/reader.ts";
import { silentLogger } from "../../shared/ports.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { MemorySyncStateStore } from "../../shared/store/sync-state-memory.ts";
import { type SyncInput, syncCluster } from "../../shared/usecases/sync.ts";
import type { AttributionStore } from "../../shared/who/attribution.ts";
import { simConnector } from "../status/sim-connector.ts";

export interface SyncStores {
  store: MemoryReleaseStore;
  syncState: MemorySyncStateStore;
  /** Where the sync enqueues new revisions for attribution (docs/who.md); absent: not attributed. */
  attributions?: AttributionStore;
}

export function syncOnSimulator(clusterName: string) {
  let sim: SimulatedEks | undefined;
  let kube: KubeReader | undefined;
  before(async () => {
    sim = await startSimulatedEks({ clusters: [{ name: clusterName }] });
    kube = createKubeReader({ connector: simConnector(sim) });
  });
  after(async () => {
    await kube?.close();
    await sim?.stop();
  });
  const cluster = () => sim!.cluster(clusterName);
  return {
    cluster,
    key: (namespace: string, name: string) => ({ cluster: clusterName, namespace, name }),
    /** Empty stores, and the cluster without the faults or deny rules a test left. */
    fresh(): SyncStores {
      cluster().faults.clear();
      cluster().allowAll();
      return { store: new MemoryReleaseStore(), syncState: new MemorySyncStateStore() };
    },
    sync: (stores: SyncStores, input: Partial<SyncInput> = {}) =>
      syncCluster(
        { ...stores, kube: kube!, scope: kube!.connector, logger: silentLogger },
        { cluster: clusterName, ...input },
      ),
  };
}
