import assert from "node:assert/strict";
import type { SimCluster } from "../../local/sim/cluster.ts";

/**
 * Plays the kubelet for `helm test`: the simulator runs no pods, so once helm has created its test pod (and its
 * watch is open) the pod is marked Succeeded. Bounded: 15 s for the pod to appear.
 */
export async function completeTestPod(cluster: SimCluster, namespace: string, name: string): Promise<void> {
  let pod = cluster.get("v1", "Pod", name, namespace);
  for (let i = 0; i < 300 && !pod; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    pod = cluster.get("v1", "Pod", name, namespace);
  }
  assert.ok(pod, `helm created the test pod ${namespace}/${name}`);
  // helm starts watching right after the create; a change before its watch opened would still be seen
  // (the initial events), but the pause keeps this the ordinary order of events.
  await new Promise((resolve) => setTimeout(resolve, 500));
  cluster.apply([{ ...pod, status: { phase: "Succeeded" } }]);
}
