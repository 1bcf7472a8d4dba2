/**
 * Running the CLIs in tests: `spawnNode` starts a real process (the entry point, lazy command loading, exit
 * codes), `runCli` runs one command module in this process through bin/lib/run.ts (same error reporting,
 * no Node start-up per case: the machine is shared). Both collect stdout and stderr as text, bounded in time.
 */
import { type ChildProcess, execFile, spawn, spawnSync } from "node:child_process";
import { PassThrough, Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { runCommand } from "../../bin/lib/run.ts";

export const CLI = fileURLToPath(new URL("../../bin/cli.ts", import.meta.url));
export const SIM_CLI = fileURLToPath(new URL("../../local/sim/cli.ts", import.meta.url));

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** What a child wrote so far, and a promise of its exit code. */
export interface Running {
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  exited: Promise<number | null>;
}

/** Starts `node SCRIPT ARGS` and collects its output as it comes; killed (SIGKILL) after `timeoutMs` (default 2 min). */
export function startNode(
  script: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; stdin?: string; timeoutMs?: number } = {},
): Running {
  const child = spawn(process.execPath, [script, ...args], {
    env: options.env ?? process.env,
    stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
  });
  const output = { stdout: "", stderr: "" };
  child.stdout?.on("data", (chunk) => {
    output.stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output.stderr += chunk;
  });
  // Generous: a loaded 2-core machine starts Java (DynamoDB Local) slowly; still bounded.
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000);
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
  child.stdin?.end(options.stdin);
  return { child, output, exited };
}

/** `node SCRIPT ARGS` to completion. */
export async function spawnNode(
  script: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; stdin?: string; timeoutMs?: number } = {},
): Promise<Run> {
  const running = startNode(script, args, { stdin: "", ...options });
  const code = await running.exited;
  return { code, ...running.output };
}

/** `npm run cli -- COMMAND ARGS` in this process; `terminal` makes stderr look like a TTY. */
export async function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  options: { stdin?: string; terminal?: boolean } = {},
): Promise<Run> {
  const [name, ...rest] = args;
  const out = new PassThrough();
  const err = Object.assign(new PassThrough(), { isTTY: options.terminal ?? false });
  let stdout = "";
  let stderr = "";
  out.on("data", (chunk) => {
    stdout += chunk;
  });
  err.on("data", (chunk) => {
    stderr += chunk;
  });
  const file = fileURLToPath(new URL(`../../bin/commands/${name}.ts`, import.meta.url));
  const stdin = Readable.from([options.stdin ?? ""]);
  const code = await runCommand(file, rest, { stdout: out, stderr: err, stdin, env });
  return { code, stdout, stderr };
}

/** Any program to completion, asynchronously (a simulator in this process keeps answering meanwhile). */
export function runProgram(
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number },
): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { env: options.env, cwd: options.cwd, encoding: "utf8", timeout: options.timeoutMs ?? 120_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** What a bash completion script offers for `words` (the last one being completed), as one line. */
export function bashCompletion(script: string, words: string[], fn = "_helm_status"): string {
  const quoted = words.map((word) => `'${word}'`).join(" ");
  return spawnSync(
    "bash",
    ["-c", `${script}\nCOMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; ${fn}; echo "\${COMPREPLY[*]}"`],
    { encoding: "utf8" },
  ).stdout.trim();
}
