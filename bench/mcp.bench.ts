/**
 * `npm run bench -- mcp`: what the MCP tools (issue #35) cost the API function. The bundle as serverless.yml builds
 * it, zipped, against the same bundle built without the MCP tools and SDK (functions/api/mcp/answer.ts stubbed); then
 * cold starts in fresh processes, order rotating: import of handler.mjs + its first `POST /mcp` `tools/call
 * release_status` against import + its first `GET .../status` on the same release (the REST route asked for JSON,
 * and as it answers by default: Helm's text; the tool answers both), through
 * the EKS connector (DescribeCluster + token) of the simulated EKS (no added latency: the strict ratio) and
 * DynamoDB Local, API Gateway v2 events. The issue's goals: cold tools/call ≤ 1.2x cold REST, zip growth ≤ 150 KB.
 * Nothing is asserted: the figures are printed (docs/bench.md).
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { deflateRawSync } from "node:zlib";
import type { Plugin } from "esbuild";
import { type DynamoDbLocal, startDynamoDbLocal } from "../local/dynamodb-local.ts";
import { startSimulatedEksInWorker, type WorkerSimulatedEks } from "../local/sim/worker.ts";
import { encodeHelmSecret } from "../shared/release/helm-codec.ts";
import { openReleaseStore } from "../shared/store/config.ts";
import { benchRelease, machineLoad, median, spread, startWatchdog } from "./lib.ts";
import { benchFunctionEnv, benchReleasesTable } from "./local-stack.ts";
import { bundle, serverlessEsbuild } from "./status-bundle.ts";

const run = promisify(execFile);
const ROOT = new URL("..", import.meta.url).pathname;
/** Inside the repo, so the external @aws-sdk/* resolve from node_modules as the runtime's would. */
const OUT = join(ROOT, ".build", "bench-mcp");
const CLUSTER = "bench";
/** Rounds of cold starts: one of each kind per round, their order rotating. */
const ROUNDS = Number(process.env.BENCH_MCP_ROUNDS ?? 15);
/** The REST status route as a program asks for it (JSON) and as it answers by default (Helm's text), then MCP. */
const KINDS = ["json", "table", "mcp"] as const;
type Kind = (typeof KINDS)[number];
const STORE_WARM_READS = 300;

startWatchdog("mcp", 8 * 60_000);

// The child: import the bundle, then the first request (cold) and a second (warm); wall and thread CPU of each.
const CHILD = `
const cpu0 = process.threadCpuUsage();
const t0 = performance.now();
const { handler } = await import("./handler.mjs");
const { cluster, namespace, name } = JSON.parse(process.env.BENCH_RELEASE);
const mcp = process.env.BENCH_MODE === "mcp";
const accept = process.env.BENCH_MODE === "json" ? "application/json" : "*/*";
const statusPath = "/clusters/" + cluster + "/namespaces/" + namespace + "/releases/" + name + "/status";
const path = mcp ? "/mcp" : statusPath;
let id = 0;
const event = () => ({
  version: "2.0", routeKey: "$default", rawPath: path, rawQueryString: "", isBase64Encoded: false,
  headers: mcp
    ? { "content-type": "application/json", accept: "application/json, text/event-stream", host: "bench.example" }
    : { accept, host: "bench.example" },
  requestContext: { accountId: "123456789012", apiId: "bench", domainName: "bench.example", stage: "$default",
    requestId: "r" + ++id, timeEpoch: Date.now(),
    http: { method: mcp ? "POST" : "GET", path, protocol: "HTTP/1.1", sourceIp: "127.0.0.1", userAgent: "bench" } },
  ...(mcp ? { body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call",
    params: { name: "release_status", arguments: { cluster, namespace, name } } }) } : {}),
});
const context = () => ({ awsRequestId: "r" + id, functionName: "api", getRemainingTimeInMillis: () => 29000 });
const timed = async () => {
  const c = process.threadCpuUsage();
  const t = performance.now();
  const result = await handler(event(), context());
  const u = process.threadCpuUsage(c);
  const ok = result.statusCode === 200 && (!mcp || !JSON.parse(result.body).result?.isError);
  return { ms: performance.now() - t, cpuMs: (u.user + u.system) / 1000, ok, body: ok ? "" : String(result.body).slice(0, 300) };
};
const imported = { ms: performance.now() - t0, cpuMs: (process.threadCpuUsage(cpu0).user + process.threadCpuUsage(cpu0).system) / 1000 };
const first = await timed();
const second = await timed();
process.stdout.write(JSON.stringify({ imported, first, second }));
process.exit(0);
`;

interface Timed {
  ms: number;
  cpuMs: number;
}
interface ColdRun {
  imported: Timed;
  first: Timed & { ok: boolean; body: string };
  second: Timed & { ok: boolean; body: string };
}

/** The bundle without the MCP tools and SDK: answer.ts (what route.ts loads with import()) as a stub. */
const withoutMcp: Plugin = {
  name: "without-mcp",
  setup(build) {
    build.onResolve({ filter: /\/answer\.ts$/ }, (args) =>
      args.importer.endsWith(join("functions", "api", "mcp", "route.ts"))
        ? { path: "answer-stub", namespace: "without-mcp" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "without-mcp" }, () => ({
      contents: 'export async function answerMcp() { throw new Error("built without MCP"); }',
      loader: "js",
    }));
  },
};

async function sizes(): Promise<{ lines: string[] }> {
  const settings = serverlessEsbuild();
  const measure = async (file: string, plugins: Plugin[]) => {
    await bundle(file, settings, false, plugins);
    return { size: statSync(file).size, zipped: deflateRawSync(readFileSync(file), { level: 9 }).length };
  };
  const without = await measure(join(OUT, "without", "handler.mjs"), [withoutMcp]);
  const withMcp = await measure(join(OUT, "handler.mjs"), []);
  const kb = (bytes: number) => `${(bytes / 1000).toFixed(0)} KB`;
  return {
    lines: [
      "API bundle (serverless.yml custom.esbuild), without the MCP tools and SDK vs as shipped; zipped = deflate level 9",
      `  handler.mjs   ${without.size} B -> ${withMcp.size} B (+${kb(withMcp.size - without.size)})`,
      `  zipped        ${without.zipped} B -> ${withMcp.zipped} B (+${kb(withMcp.zipped - without.zipped)}; goal <= 150 KB)`,
    ],
  };
}

async function coldStart(mode: Kind, env: Record<string, string>): Promise<ColdRun> {
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", CHILD], {
    cwd: OUT,
    timeout: 60_000,
    env: { PATH: process.env.PATH ?? "", ...env, BENCH_MODE: mode },
  });
  const result = JSON.parse(stdout) as ColdRun;
  for (const answer of [result.first, result.second]) {
    if (!answer.ok) throw new Error(`${mode} cold start: the request failed: ${answer.body}`);
  }
  return result;
}

async function main(): Promise<void> {
  const loadBefore = machineLoad();
  let sim: WorkerSimulatedEks | undefined;
  let dynamo: DynamoDbLocal | undefined;
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(join(OUT, "without"), { recursive: true });
  try {
    const size = await sizes();
    process.stdout.write(`${size.lines.join("\n")}\n`);
    [sim, dynamo] = await Promise.all([
      startSimulatedEksInWorker({ clusters: [{ name: CLUSTER }], seed: 1 }),
      startDynamoDbLocal(),
    ]);
    const cfg = await benchReleasesTable(dynamo.endpoint);
    const store = openReleaseStore(cfg);
    const release = benchRelease("bench", "bench", 10);
    await sim.cluster(CLUSTER).materialize(release.manifest ?? "", { namespace: release.namespace });
    await store.putRevision(CLUSTER, release);
    await sim.cluster(CLUSTER).apply([encodeHelmSecret(release)]);
    // DynamoDB Local is a JVM: its first reads are JIT-cold; a real DynamoDB endpoint is always warm.
    for (let i = 0; i < STORE_WARM_READS; i++)
      await store.getLatest({ cluster: CLUSTER, namespace: "bench", name: "bench" });

    const env = {
      ...benchFunctionEnv(cfg, sim),
      BENCH_RELEASE: JSON.stringify({ cluster: CLUSTER, namespace: "bench", name: "bench" }),
    };
    // One of each first, untimed: the simulator's and DynamoDB Local's own first answers to a new client.
    for (const kind of KINDS) await coldStart(kind, env);
    const runs: Record<Kind, ColdRun[]> = { json: [], table: [], mcp: [] };
    for (let i = 0; i < ROUNDS; i++) {
      // The order rotates, so a load change on a shared machine hits every kind alike.
      for (let k = 0; k < KINDS.length; k++) {
        const kind = KINDS[(i + k) % KINDS.length];
        runs[kind].push(await coldStart(kind, env));
      }
    }
    const figure = (mode: Kind, pick: (r: ColdRun) => number) => median(runs[mode].map(pick));
    const wall = (r: ColdRun) => r.imported.ms + r.first.ms;
    const cpu = (r: ColdRun) => r.imported.cpuMs + r.first.cpuMs;
    // The runs of one round were back to back under the same load: the median of their ratios is the steadier one.
    const roundRatio = (rest: Kind, pick: (r: ColdRun) => number) =>
      median(runs.mcp.map((r, i) => pick(r) / pick(runs[rest][i])));
    const ratios = (rest: Kind, label: string) =>
      `  tools/call / ${label.padEnd(14)}${(figure("mcp", wall) / figure(rest, wall)).toFixed(2)}x wall, ${(figure("mcp", cpu) / figure(rest, cpu)).toFixed(2)}x thread CPU; median of the rounds' own ratios ${roundRatio(rest, wall).toFixed(2)}x wall, ${roundRatio(rest, cpu).toFixed(2)}x CPU (goal <= 1.2x)`;
    const row = (label: string, mode: Kind) =>
      `  ${label.padEnd(37)}import ${figure(mode, (r) => r.imported.ms)
        .toFixed(0)
        .padStart(4)} ms + first ${figure(mode, (r) => r.first.ms)
        .toFixed(0)
        .padStart(
          4,
        )} ms = ${figure(mode, wall).toFixed(0).padStart(4)} ms (${spread(runs[mode].map(wall))}), thread CPU ${figure(mode, cpu).toFixed(0)} ms; second (warm) ${figure(mode, (r) => r.second.ms).toFixed(1)} ms`;
    const lines = [
      `cold start (import + first request), the same bundle and release (40 resources), median (min–max) of ${ROUNDS} fresh processes each, order rotating`,
      row("GET .../status, JSON", "json"),
      row("GET .../status (Helm's text)", "table"),
      row("POST /mcp tools/call release_status", "mcp"),
      ratios("json", "REST JSON"),
      ratios("table", "REST text"),
      `machine load: ${loadBefore} before, ${machineLoad()} after`,
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
  } finally {
    await Promise.allSettled([sim?.stop(), dynamo?.stop()]);
    rmSync(OUT, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
