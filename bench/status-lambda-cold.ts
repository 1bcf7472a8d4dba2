/**
 * Bench section: a Lambda cold start end to end, in fresh processes — import of
 * the bundled API handler, then its first status request (the connector's
 * DescribeCluster + token, a new KubeReader loading undici, TLS, one wave, the
 * DynamoDB read), then a second, warm one — against the simulator and DynamoDB
 * Local. What a user waits for on a cold instance, side by side with the
 * physical floor of a cold process: the bare SDK import plus the warm limit.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { median, spread } from "./lib.ts";

const run = promisify(execFile);
const RUNS = 5;

export interface LambdaColdSetup {
  /** Folder holding handler.mjs, inside the repo so the external @aws-sdk/* resolve. */
  bundleDir: string;
  env: Record<string, string>;
  /** Path of the status route, e.g. /clusters/c/namespaces/ns/releases/r/status. */
  statusPath: string;
  /** One store read + one API round trip, warm (ms). */
  limitMs: number;
  /** Median of fresh `import("@aws-sdk/client-dynamodb")` (ms). */
  sdkImportMs: number;
}

// The child: import first (timed alone), then two API Gateway v2 events through the handler.
const CHILD = `
const t0 = performance.now();
const { handler } = await import("./handler.mjs");
const t1 = performance.now();
const path = process.env.BENCH_STATUS_PATH;
const event = () => ({
  version: "2.0", routeKey: "$default", rawPath: path, rawQueryString: "output=table",
  headers: { accept: "text/plain", host: "bench.execute-api.eu-west-1.amazonaws.com" },
  queryStringParameters: { output: "table" },
  requestContext: {
    accountId: "123456789012", apiId: "bench", domainName: "bench.execute-api.eu-west-1.amazonaws.com",
    domainPrefix: "bench", http: { method: "GET", path, protocol: "HTTP/1.1", sourceIp: "127.0.0.1", userAgent: "bench" },
    requestId: String(Math.random()), routeKey: "$default", stage: "$default", time: new Date().toISOString(), timeEpoch: Date.now(),
  },
  isBase64Encoded: false,
});
// The Lambda context as the local server builds it (local/server.ts), loaded after the timed import.
const { lambdaContext } = await import(process.env.BENCH_LOCAL_SERVER);
const context = () => lambdaContext(29000, "helm-status-api");
const t1b = performance.now();
const first = await handler(event(), context());
const t2 = performance.now();
const second = await handler(event(), context());
const t3 = performance.now();
process.stdout.write(JSON.stringify({ importMs: t1 - t0, firstMs: t2 - t1b, secondMs: t3 - t2, statuses: [first.statusCode, second.statusCode] }));
process.exit(0);
`;

interface ColdRun {
  importMs: number;
  firstMs: number;
  secondMs: number;
  statuses: number[];
}

export async function lambdaColdStarts(setup: LambdaColdSetup): Promise<{ lines: string[]; totalOverFloor: number }> {
  const runs: ColdRun[] = [];
  for (let i = 0; i < RUNS; i++) {
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", CHILD], {
      cwd: setup.bundleDir,
      timeout: 60_000,
      env: {
        PATH: process.env.PATH ?? "",
        ...setup.env,
        BENCH_STATUS_PATH: setup.statusPath,
        BENCH_LOCAL_SERVER: new URL("../local/server.ts", import.meta.url).href,
      },
    });
    const result = JSON.parse(stdout) as ColdRun;
    if (result.statuses.some((status) => status !== 200)) {
      throw new Error(`lambda cold start: the status route answered ${result.statuses.join(", ")}`);
    }
    runs.push(result);
  }
  const importMs = median(runs.map((r) => r.importMs));
  const firstMs = median(runs.map((r) => r.firstMs));
  const secondMs = median(runs.map((r) => r.secondMs));
  const total = median(runs.map((r) => r.importMs + r.firstMs));
  const floor = setup.sdkImportMs + setup.limitMs;
  const ms = (value: number) => `${value.toFixed(0).padStart(5)} ms`;
  return {
    totalOverFloor: total / floor,
    lines: [
      `Lambda cold start end to end: the bundled API handler in ${RUNS} fresh processes (import, then its first and second status request; API Gateway v2 events)`,
      `  import handler.mjs        ${ms(importMs)}  (${spread(runs.map((r) => r.importMs))})`,
      `  first status (cold)       ${ms(firstMs)}  (${spread(runs.map((r) => r.firstMs))})  DescribeCluster + token + undici + TLS + one wave + store read`,
      `  second status (warm)      ${ms(secondMs)}  (${spread(runs.map((r) => r.secondMs))})`,
      `  import + first status     ${ms(total)}  vs floor ${floor.toFixed(0)} ms (bare SDK import ${setup.sdkImportMs.toFixed(0)} + warm limit ${setup.limitMs.toFixed(0)}): ${(total / floor).toFixed(2)}x`,
    ],
  };
}
