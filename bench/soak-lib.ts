/** Helpers of `npm run soak`: the `npm start` stack as a child process, its RSS, client loops, percentiles. */

import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { APIGatewayProxyEventV2 } from "aws-lambda";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

export interface LocalStack {
  url: string;
  pid: number;
  /** Resident set size of the stack's process (the API, the in-process simulator; DynamoDB Local is its own JVM). */
  rssMb(): number;
  /** Writes a heap snapshot in the child's working directory (it was started with --heapsnapshot-signal). */
  heapSnapshot(): void;
  stop(): Promise<void>;
}

/** `npm start` exactly as a user runs it (demo data, in-process simulator), on a free port and its own data folder. */
export async function startLocalStack(
  dataDir: string,
  nodeFlags: string[] = [],
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<LocalStack> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PORT: "0",
    HELM_STATUS_DATA_DIR: dataDir,
    POWERTOOLS_LOG_LEVEL: "ERROR",
    ...extraEnv,
  };
  const child = spawn(process.execPath, [...nodeFlags, "local/start.ts"], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`npm start did not come up in 120 s: ${output.slice(-500)}`)),
      120_000,
    );
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-20_000);
      const match = /API ready on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}: ${output.slice(-500)}`));
    });
  });
  // Keep draining its output (request logs) so the pipe never blocks it.
  child.stdout?.resume();
  child.stderr?.resume();
  return {
    url,
    pid: child.pid!,
    rssMb: () => rssMb(child.pid!),
    heapSnapshot: () => child.kill("SIGUSR2"),
    stop: () => stopChild(child),
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

export function rssMb(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    if (kb) return Number(kb) / 1024;
  } catch {
    // Not Linux: ps has it.
  }
  return Number(execFileSync("ps", ["-o", "rss=", "-p", String(pid)], { encoding: "utf8" }).trim()) / 1024;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export interface LoadResult {
  requests: number;
  byStatus: Record<string, number>;
  /** Requests that got no HTTP answer at all (connection refused/reset, timeout). */
  errors: number;
  latenciesMs: number[];
  seconds: number;
  /** One body per status >= 500, to say what failed. */
  samples: Record<string, string>;
}

/** `clients` loops, each requesting the next of `urls` as soon as its previous answer is read, for `seconds`. */
export async function loadClients(
  urls: string[],
  clients: number,
  seconds: number,
  headers: Record<string, string> = {},
): Promise<LoadResult> {
  const result: LoadResult = { requests: 0, byStatus: {}, errors: 0, latenciesMs: [], seconds, samples: {} };
  const until = performance.now() + seconds * 1000;
  let next = 0;
  const client = async () => {
    while (performance.now() < until) {
      const url = urls[next++ % urls.length];
      const started = performance.now();
      try {
        const response = await fetch(url, { headers, signal: AbortSignal.timeout(35_000) });
        const body = await response.text();
        result.byStatus[response.status] = (result.byStatus[response.status] ?? 0) + 1;
        if (response.status >= 500) result.samples[response.status] ??= body.slice(0, 300);
      } catch {
        result.errors++;
      }
      result.requests++;
      result.latenciesMs.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  return result;
}

export function count5xx(result: LoadResult): number {
  return Object.entries(result.byStatus)
    .filter(([status]) => Number(status) >= 500)
    .reduce((sum, [, n]) => sum + n, 0);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** API Gateway's payload 2.0 event for `GET path?output=json`, as the soak hands it to the handler in process. */
export function apiEvent(path: string): APIGatewayProxyEventV2 {
  const now = new Date();
  return {
    version: "2.0",
    routeKey: "$default",
    rawPath: path,
    rawQueryString: "output=json",
    queryStringParameters: { output: "json" },
    headers: { accept: "application/json", host: "soak" },
    requestContext: {
      accountId: "000000000000",
      apiId: "soak",
      domainName: "soak",
      domainPrefix: "soak",
      http: { method: "GET", path, protocol: "HTTP/1.1", sourceIp: "127.0.0.1", userAgent: "soak" },
      requestId: `soak-${now.getTime()}-${Math.random()}`,
      routeKey: "$default",
      stage: "$default",
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: false,
  };
}
