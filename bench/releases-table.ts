/**
 * The benches' releases table on DynamoDB Local, created fresh. A file of its own, not lib.ts: the processes whose
 * cold start a bench measures import lib.ts and must not load the DynamoDB client for it.
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
