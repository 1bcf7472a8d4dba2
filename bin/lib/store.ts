/**
 * The CLI's store. With an endpoint or AWS credentials configured, the configured
 * table; with neither (a fresh machine), an embedded DynamoDB Local keeping its
 * data under `.data/dynamodb/` in the project, started for the command and
 * stopped after it, with the table created on first use.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startDynamoDbLocal } from "../../local/dynamodb-local.ts";
import {
  createDynamoDbClient,
  openReleaseStore,
  type StoreConfig,
  storeConfigFromEnv,
} from "../../shared/store/config.ts";
import { StoreUnavailableError } from "../../shared/store/errors.ts";
import { ensureReleasesTable } from "../../shared/store/init-table.ts";
import type { ReleaseStore } from "../../shared/store/release-store.ts";

const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface CliStoreContext {
  config: StoreConfig;
  /** True when running on the embedded DynamoDB Local. */
  embedded: boolean;
  /** Where the embedded engine keeps its data. */
  dataDir?: string;
}

/** Any sign the user means a real (or explicitly configured) DynamoDB. */
export function usesEmbeddedStore(env: NodeJS.ProcessEnv): boolean {
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
  const unlock = await lockDataDir(dataDir);
  let engine: Awaited<ReturnType<typeof startDynamoDbLocal>> | undefined;
  try {
    engine = await startDynamoDbLocal({ dataDir });
    const config: StoreConfig = {
      ...storeConfigFromEnv({ RELEASES_TABLE: env.RELEASES_TABLE, AWS_ENDPOINT_URL_DYNAMODB: engine.endpoint }),
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
    unlock();
  }
}

/** Waits this long for another CLI run using the same embedded data (DynamoDB Local's file cannot be shared). */
const LOCK_WAIT_MS = 120_000;

/**
 * One embedded engine per data folder at a time: two JVMs on one SQLite file fail
 * with "unknown error". The lock holds our pid, so a crashed holder's lock is taken over.
 */
async function lockDataDir(dataDir: string): Promise<() => void> {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, ".cli.lock");
  const deadline = Date.now() + LOCK_WAIT_MS;
  let holder = "";
  while (Date.now() < deadline) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      const release = () => rmSync(path, { force: true });
      process.once("exit", release);
      return () => {
        process.removeListener("exit", release);
        release();
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    holder = readHolder(path);
    if (holder && !isAlive(Number(holder))) rmSync(path, { force: true });
    else await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new StoreUnavailableError(
    `the embedded DynamoDB Local data in ${dataDir} is in use by process ${holder || "?"}; ` +
      "wait for it to finish, or set HELM_STATUS_DATA_DIR to another folder",
    "EmbeddedStoreBusy",
  );
}

function readHolder(path: string): string {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return "";
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
