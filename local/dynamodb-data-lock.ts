/**
 * One DynamoDB Local per data folder: two JVMs on one SQLite file fail with
 * "unknown error". The engine's starter records itself (pid, owner, endpoint)
 * and the engine's own JVM pid in `<dataDir>/.engine.json`; others wait for it,
 * or, if it is a long-running server (`npm start`), use its endpoint. A dead
 * holder's file is taken over, and if the holder died without stopping its
 * engine (kill -9 before the JVM's parent watchdog fired, or a JVM without the
 * watchdog), that orphaned engine is stopped first: never two engines on one folder.
 */
import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { errorKind } from "../shared/errors.ts";

export class DataDirBusyError extends errorKind("unavailable", "EmbeddedStoreBusy") {}

export interface DataDirHolder {
  pid: number;
  /** Who started the engine: "cli" for a one-command run, anything else for a server. */
  owner: string;
  endpoint?: string;
  /** The DynamoDB Local JVM serving the folder (its process group leader). */
  enginePid?: number;
}

export interface DataDirLock {
  /** Records the engine's JVM as soon as it is spawned, so a holder killed during start-up leaves a trace. */
  recordEngine(enginePid: number): void;
  announce(endpoint: string, enginePid?: number): void;
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
      // Dead or half-written holder: stop the engine it left running, then take over
      // (a racing taker loses the next "wx").
      await stopOrphanEngine(recordedHolder(dataDir), dataDir);
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
  let engine: number | undefined;
  let endpointSeen: string | undefined;
  const write = () => {
    const record: DataDirHolder = { pid: process.pid, owner };
    if (endpointSeen) record.endpoint = endpointSeen;
    if (engine !== undefined) record.enginePid = engine;
    writeFileSync(path, JSON.stringify(record));
  };
  return {
    recordEngine(enginePid: number) {
      engine = enginePid;
      write();
    },
    announce(endpoint: string, enginePid?: number) {
      endpointSeen = endpoint;
      if (enginePid !== undefined) engine = enginePid;
      write();
    },
    release() {
      process.removeListener("exit", release);
      release();
    },
  };
}

/** The recorded holder whether or not it is alive. */
function recordedHolder(dataDir: string): Partial<DataDirHolder> | undefined {
  try {
    return JSON.parse(readFileSync(lockPath(dataDir), "utf8"));
  } catch {
    return undefined;
  }
}

/**
 * Stops the JVM a dead holder left serving `dataDir`, if it is still there and is
 * really a DynamoDB Local on that folder (a recycled pid is left alone).
 */
export async function stopOrphanEngine(holder: Partial<DataDirHolder> | undefined, dataDir: string): Promise<boolean> {
  const pid = holder?.enginePid;
  if (!isAlive(pid) || !isEngineOn(pid as number, dataDir)) return false;
  signalGroup(pid as number, "SIGTERM");
  const deadline = Date.now() + 5_000;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  if (isAlive(pid)) signalGroup(pid as number, "SIGKILL");
  while (isAlive(pid) && Date.now() < deadline + 2_000) await new Promise((resolve) => setTimeout(resolve, 50));
  return true;
}

/** Whether `pid` is a DynamoDB Local JVM with `-dbPath dataDir` (Linux /proc, else ps). */
export function isEngineOn(pid: number, dataDir: string): boolean {
  let command: string;
  try {
    command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    try {
      command = execFileSync("ps", ["-o", "command=", "-p", String(pid)], { encoding: "utf8", timeout: 5_000 });
    } catch {
      return false;
    }
  }
  return /DynamoDBLocal/.test(command) && command.includes(`-dbPath ${dataDir}`);
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    // The engine runs in its own process group (spawned detached): the group takes anything it started too.
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
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
