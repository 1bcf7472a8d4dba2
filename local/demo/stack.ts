/**
 * The demo without the API: DynamoDB Local (its data in `dataDir`), the simulated EKS with the demo's clusters and
 * the demo releases in table `table`, and the environment a CLI process needs to read them through EKS (endpoint,
 * registry, the simulated IAM user's keys). For benchmarks and tests that run the command as a user would.
 */
import { createDynamoDbClient, openReleaseStore, storeConfigFromEnv } from "../../shared/store/config.ts";
import { ensureReleasesTable } from "../../shared/store/table-schema.ts";
import { startDynamoDbLocal } from "../dynamodb-local.ts";
import { type SimulatedEks, startSimulatedEks } from "../sim/index.ts";
import { DEMO_CLUSTERS } from "./releases.ts";
import { seedDemo } from "./seed.ts";

export interface DemoStack {
  env: NodeJS.ProcessEnv;
  sim: SimulatedEks;
  stop(): Promise<void>;
}

export async function startDemoStack(options: { dataDir: string; table: string }): Promise<DemoStack> {
  const [dynamo, sim] = await Promise.all([
    startDynamoDbLocal({ dataDir: options.dataDir }),
    startSimulatedEks({ clusters: DEMO_CLUSTERS.map((c) => ({ name: c.name, region: c.region })) }),
  ]);
  const stop = async () => {
    await Promise.all([dynamo.stop(), sim.stop()]);
  };
  try {
    const env: NodeJS.ProcessEnv = {
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_REGION: "us-east-1",
      RELEASES_TABLE: options.table,
      CLUSTERS: JSON.stringify(sim.registryEntries()),
      AWS_ACCESS_KEY_ID: sim.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: sim.credentials.secretAccessKey,
    };
    const config = storeConfigFromEnv(env);
    const client = createDynamoDbClient(config);
    try {
      await ensureReleasesTable(client, config);
    } finally {
      client.destroy();
    }
    await seedDemo(openReleaseStore(config), sim);
    return { env, sim, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
