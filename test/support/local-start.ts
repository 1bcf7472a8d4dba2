/**
 * `npm start` (local/start.ts) as a test runs it: in its own process group (as a terminal's foreground job, so
 * SIGINT/SIGKILL to `-pid` reach the whole stack), with its own data directory and none of the developer's
 * clusters, registry file or tables; its stdout and stderr collected together.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";

export const ROOT = new URL("../..", import.meta.url).pathname;

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
