/**
 * The benches' local stack as the functions see it: the releases table on DynamoDB Local, created fresh, and the
 * environment of a function process against that table and the simulator. A file of its own, not lib.ts: every bench
 * imports lib.ts, and only those that start DynamoDB Local need the DynamoDB client loaded.
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { StoreConfig } from "../shared/store/config.ts";
import { ensureReleasesTable } from "../shared/store/table-schema.ts";

/** The store configuration of the table "bench-releases" on DynamoDB Local at `endpoint`, the table created. */
export async function benchReleasesTable(endpoint: string): Promise<StoreConfig> {
  const config: StoreConfig = {
    region: "us-east-1",
    endpoint,
    tableName: "bench-releases",
    credentials: { accessKeyId: "bench", secretAccessKey: "bench" },
  };
  const admin = new DynamoDBClient({ region: config.region, endpoint, credentials: config.credentials });
  try {
    await ensureReleasesTable(admin, config);
  } finally {
    admin.destroy();
  }
  return config;
}

/**
 * The environment of a function (a bundle in a child process, or the handler in this one) against `table` and the
 * simulator: the simulator's keys (the SDK signs with them), its clusters as the registry, Powertools silent.
 */
export function benchFunctionEnv(
  table: StoreConfig,
  sim: { credentials: { accessKeyId: string; secretAccessKey: string }; registryEntries(): unknown[] },
): Record<string, string> {
  return {
    AWS_REGION: table.region,
    AWS_ENDPOINT_URL_DYNAMODB: table.endpoint ?? "",
    RELEASES_TABLE: table.tableName,
    AWS_ACCESS_KEY_ID: sim.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: sim.credentials.secretAccessKey,
    CLUSTERS: JSON.stringify(sim.registryEntries()),
    POWERTOOLS_LOG_LEVEL: "SILENT",
    POWERTOOLS_METRICS_DISABLED: "true",
  };
}
