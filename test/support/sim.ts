/**
 * One simulated EKS for a test file: started (then `setup`) before its tests, stopped after them (with the
 * product's keep-alive connections to it closed first, so the process can exit).
 */
import { after, before } from "node:test";
import { type SimOptions, type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { closeKubeConnections } from "../../shared/kube/http.ts";

export function simulatedEksForFile(
  options: SimOptions,
  setup?: (sim: SimulatedEks) => void | Promise<void>,
): () => SimulatedEks {
  let sim: SimulatedEks | undefined;
  before(async () => {
    sim = await startSimulatedEks(options);
    await setup?.(sim);
  });
  after(async () => {
    await closeKubeConnections();
    await sim?.stop();
  });
  return () => {
    if (!sim) throw new Error("the simulated EKS is not started yet (use it inside a test or a before hook)");
    return sim;
  };
}
