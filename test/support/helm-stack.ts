/**
 * What a test of the real helm against this product starts: one simulated EKS cluster and DynamoDB Local (with the
 * releases table), a temporary HOME with the cluster's kubeconfig (mode 0600, removed by `stop`), the chart
 * `helm create` writes there, and the CLI's environment through the registry and EKS auth.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { type DynamoDbLocal, startDynamoDbLocal } from "../../local/dynamodb-local.ts";
import { type SimOptions, type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { ensureReleasesTable } from "../../shared/store/table-schema.ts";
import { kubeToolsEnv } from "./kube-tools.ts";
import { simCliEnv } from "./sim.ts";

const exec = promisify(execFile);

export interface HelmStack {
  sim: SimulatedEks;
  dynamo: DynamoDbLocal;
  home: string;
  kubeconfig: string;
  /** `helm create demo` in `home`. */
  chart: string;
  /** The CLI's environment (simCliEnv). */
  cliEnv: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

export async function startHelmStack(options: {
  helm: string;
  cluster: string;
  table: string;
  /** The temporary HOME's name prefix. */
  prefix: string;
  now?: SimOptions["now"];
}): Promise<HelmStack> {
  const [sim, dynamo] = await Promise.all([
    startSimulatedEks({ clusters: [{ name: options.cluster }], now: options.now }),
    startDynamoDbLocal(),
  ]);
  const home = await mkdtemp(join(tmpdir(), options.prefix));
  const stop = async () => {
    await Promise.allSettled([sim.stop(), dynamo.stop()]);
    await rm(home, { recursive: true, force: true });
  };
  try {
    const kubeconfig = join(home, "kubeconfig");
    await writeFile(kubeconfig, sim.cluster(options.cluster).kubeconfig(), { mode: 0o600 });
    const chart = join(home, "demo");
    await exec(options.helm, ["create", chart], { env: kubeToolsEnv(home, kubeconfig), timeout: 60_000 });
    const client = new DynamoDBClient({
      region: "us-east-1",
      endpoint: dynamo.endpoint,
      credentials: { accessKeyId: "x", secretAccessKey: "x" },
    });
    try {
      await ensureReleasesTable(client, { tableName: options.table, region: "us-east-1", endpoint: dynamo.endpoint });
    } finally {
      client.destroy();
    }
    const cliEnv = simCliEnv(sim, { home, dynamoEndpoint: dynamo.endpoint, table: options.table });
    return { sim, dynamo, home, kubeconfig, chart, cliEnv, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
