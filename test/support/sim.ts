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

/**
 * The environment of a CLI run against `sim` through the registry and EKS auth, with DynamoDB Local as its store:
 * what a user exports after `npm start`, minus everything of the test process.
 */
export function simCliEnv(
  sim: SimulatedEks,
  options: { home: string; dynamoEndpoint: string; table: string },
): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: options.home,
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: sim.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: sim.credentials.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: options.dynamoEndpoint,
    RELEASES_TABLE: options.table,
    CLUSTERS: JSON.stringify(sim.registryEntries()),
  };
}
