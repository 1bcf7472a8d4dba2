/**
 * `npm start` (local/start.ts) as a test runs it: in its own process group (as a terminal's foreground job, so
 * SIGINT/SIGKILL to `-pid` reach the whole stack), with its own data directory and none of the developer's
 * clusters, registry file or tables; its stdout and stderr collected together.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";

export const ROOT = new URL("../..", import.meta.url).pathname;

/** `npm start` runs DynamoDB Local, a Java program: its tests skip without java. */
export const hasJava = spawnSync("java", ["-version"]).status === 0;

export interface LocalStart {
  child: ChildProcess;
  /** Everything it printed so far. */
  output(): string;
  /** The first match of `pattern` in the output; rejects after `timeoutMs` or when the process exits first. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
}

export function spawnLocalStart(
  command: string,
  args: string[],
  options: { dataDir: string; env: NodeJS.ProcessEnv },
): LocalStart {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      PATH: `${join(ROOT, "node_modules/.bin")}:${process.env.PATH}`,
      HELM_STATUS_DATA_DIR: options.dataDir,
      CLUSTERS: "",
      CLUSTERS_FILE: "",
      AWS_ENDPOINT_URL_DYNAMODB: "",
      RELEASES_TABLE: "",
      ...options.env,
    },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const waitFor = (pattern: RegExp, timeoutMs: number) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const deadline = Date.now() + timeoutMs;
      const poll = setInterval(() => {
        const match = output.match(pattern);
        if (match) {
          clearInterval(poll);
          resolve(match);
        } else if (Date.now() > deadline || child.exitCode !== null) {
          clearInterval(poll);
          reject(new Error(`no ${pattern} within ${timeoutMs} ms; output:\n${output}`));
        }
      }, 100);
    });
  return { child, output: () => output, waitFor };
}

/**
 * A test file's `npm start` runs: a temp directory of its own (`dir`), and an after hook that removes it and, if an
 * assertion failed midway, SIGKILLs the process group of every run it started, so the stack is never left running.
 */
export function localStartsForFile(prefix: string): {
  dir: string;
  spawn(command: string, args: string[], options: { dataDir: string; env: NodeJS.ProcessEnv }): LocalStart;
} {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const children: ChildProcess[] = [];
  after(() => {
    for (const child of children) {
      if (child.pid && child.exitCode === null) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {}
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    dir,
    spawn(command, args, options) {
      const start = spawnLocalStart(command, args, options);
      children.push(start.child);
      return start;
    },
  };
}
