/**
 * The CLI's store. With an endpoint or AWS credentials configured, the configured
 * table; with neither (a fresh machine), an embedded DynamoDB Local keeping its
 * data under `.data/dynamodb/` in the project, started for the command and
 * stopped after it, with the table created on first use.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { dataDirHolder } from "../../local/dynamodb-data-lock.ts";
import { startDynamoDbLocal } from "../../local/dynamodb-local.ts";
import { ValidationError } from "../../shared/errors.ts";
import {
  createDynamoDbClient,
  openReleaseStore,
  type StoreConfig,
  storeConfigFromEnv,
} from "../../shared/store/config.ts";
import type { ReleaseStore } from "../../shared/store/release-store.ts";
import { ensureReleasesTable } from "../../shared/store/table-schema.ts";
import type { AttributionStore } from "../../shared/who/attribution.ts";
import { openAttributionStore } from "../../shared/who/config.ts";

const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface CliStoreContext {
  config: StoreConfig;
  /** True when running on the embedded DynamoDB Local. */
  embedded: boolean;
  /** Where the embedded engine keeps its data. */
  dataDir?: string;
}

/**
 * Embedded unless there is any sign the user means a real (or explicitly configured) DynamoDB.
 * HELM_STATUS_STORE=embedded|aws overrides the guess: AWS keys exported only to reach EKS/STS
 * (the simulator's env.json) must not move the releases to a real table.
 */
export function usesEmbeddedStore(env: NodeJS.ProcessEnv): boolean {
  const forced = env.HELM_STATUS_STORE?.trim();
  if (forced === "embedded") return true;
  if (forced === "aws") return false;
  if (forced) {
    throw new ValidationError(
      `invalid HELM_STATUS_STORE ${JSON.stringify(forced)}: allowed values are embedded, aws (or unset to guess)`,
      "InvalidConfig",
    );
  }
  const configured = [
    "AWS_ENDPOINT_URL_DYNAMODB",
    "AWS_ACCESS_KEY_ID",
    "AWS_PROFILE",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
  ].some((name) => env[name]?.trim());
  if (configured) return false;
  const credentialsFile = env.AWS_SHARED_CREDENTIALS_FILE || join(env.HOME || homedir(), ".aws", "credentials");
  return !existsSync(credentialsFile);
}

export function embeddedDataDir(env: NodeJS.ProcessEnv): string {
  return env.HELM_STATUS_DATA_DIR?.trim() || join(PROJECT_ROOT, ".data", "dynamodb");
}

/** Runs `fn` with the CLI's store, starting and stopping the embedded engine around it when needed. */
export async function withCliStore<T>(
  env: NodeJS.ProcessEnv,
  fn: (store: ReleaseStore, context: CliStoreContext) => Promise<T>,
): Promise<T> {
  if (!usesEmbeddedStore(env)) {
    const config = storeConfigFromEnv(env);
    return fn(openReleaseStore(config), { config, embedded: false });
  }
  const dataDir = embeddedDataDir(env);
  // `npm start` may be serving this folder already: use its engine rather than a second one on the same file.
  const server = dataDirHolder(dataDir);
  const shared = server?.owner !== "cli" && server?.endpoint ? server.endpoint : undefined;
  let engine: Awaited<ReturnType<typeof startDynamoDbLocal>> | undefined;
  try {
    engine = shared ? undefined : await startDynamoDbLocal({ dataDir, owner: "cli" });
    const endpoint = shared ?? engine!.endpoint;
    const config: StoreConfig = {
      ...storeConfigFromEnv({ RELEASES_TABLE: env.RELEASES_TABLE, AWS_ENDPOINT_URL_DYNAMODB: endpoint }),
      // DynamoDB Local runs with -sharedDb: any keys and region see the same tables.
      credentials: { accessKeyId: "local", secretAccessKey: "local" },
    };
    const client = createDynamoDbClient(config);
    try {
      await ensureReleasesTable(client, config);
    } finally {
      client.destroy();
    }
    return await fn(openReleaseStore(config), { config, embedded: true, dataDir });
  } finally {
    await engine?.stop();
  }
}

/**
 * The attributions kept beside the releases (docs/who.md), in the CLI's store's table: history names who
 * created each revision when the workers found it (a table without any says nothing of who).
 */
export function cliAttributionStore(context: CliStoreContext): AttributionStore {
  return openAttributionStore(context.config);
}

/**
 * Where a CLI command that stores new revisions (`sync`) enqueues them for attribution: the shared table's
 * attributions, which the deployment's sync worker (or `npm start`'s loop) works off. None for the CLI's embedded
 * store, which no worker looks up (its queue would only grow), nor with WHO_LOOKUP=off.
 */
export function cliAttributionQueue(context: CliStoreContext, lookupOn: boolean): AttributionStore | undefined {
  return lookupOn && !context.embedded ? cliAttributionStore(context) : undefined;
}
