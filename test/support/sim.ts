/**
 * One simulated EKS for a test file: started (then `setup`) before its tests, stopped after them. The product's
 * connections to it belong to the KubeReaders the tests create (and close).
 */
import { after, before } from "node:test";
import { type SimOptions, type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";

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
    await sim?.stop();
  });
  return () => {
    if (!sim) throw new Error("the simulated EKS is not started yet (use it inside a test or a before hook)");
    return sim;
  };
}
