/**
 * One DynamoDB Local per data folder: two JVMs on one SQLite file fail with
 * "unknown error". The engine's starter records itself (pid, owner, endpoint) in
 * `<dataDir>/.engine.json`; others wait for it, or, if it is a long-running
 * server (`npm start`), use its endpoint. A dead holder's file is taken over.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { DomainError } from "../shared/errors.ts";

export class DataDirBusyError extends DomainError {
  readonly kind = "unavailable" as const;
  readonly code = "EmbeddedStoreBusy";
}

export interface DataDirHolder {
  pid: number;
  /** Who started the engine: "cli" for a one-command run, anything else for a server. */
  owner: string;
  endpoint?: string;
}

export interface DataDirLock {
  announce(endpoint: string): void;
  release(): void;
}

const lockPath = (dataDir: string) => join(dataDir, ".engine.json");

/** The live holder of the data folder, if any. */
export function dataDirHolder(dataDir: string): DataDirHolder | undefined {
  let holder: DataDirHolder;
  try {
    holder = JSON.parse(readFileSync(lockPath(dataDir), "utf8"));
  } catch {
    return undefined;
  }
  return holder && isAlive(holder.pid) ? holder : undefined;
}

export async function lockDataDir(dataDir: string, owner: string, waitMs: number): Promise<DataDirLock> {
  mkdirSync(dataDir, { recursive: true });
  const path = lockPath(dataDir);
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, JSON.stringify({ pid: process.pid, owner }));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = dataDirHolder(dataDir);
    if (!holder) {
      // Dead or half-written holder: take over (a racing taker loses the next "wx").
      rmSync(path, { force: true });
      continue;
    }
    if (Date.now() >= deadline) {
      throw new DataDirBusyError(
        `the DynamoDB Local data in ${dataDir} is in use by process ${holder.pid} (${holder.owner}); ` +
          "wait for it to finish, or set HELM_STATUS_DATA_DIR to another folder",
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const release = () => rmSync(path, { force: true });
  process.once("exit", release);
  return {
    announce(endpoint: string) {
      writeFileSync(path, JSON.stringify({ pid: process.pid, owner, endpoint }));
    },
    release() {
      process.removeListener("exit", release);
      release();
    },
  };
}

function isAlive(pid: unknown): boolean {
  if (typeof pid !== "number" || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
