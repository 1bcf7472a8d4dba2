/**
 * `npm run bench -- cli`: how fast the installed command starts (docs/bench.md, docs/cli.md). Medians of
 * interleaved runs (the machine is shared: interleaving spreads its load evenly over the variants), as ratios
 * to a bare `node -e 0` on the same Node 24:
 *   - `--help` from a checkout (bin/helm-status.js running bin/cli.ts by type stripping) and from the packed
 *     layout (the launcher + the esbuild bundle, as `npm install -g TARBALL` lays them out);
 *   - the same launcher started by an older system Node, which re-runs the entry on the Node 24 it finds;
 *   - `npm run --silent cli -- --help` for reference (npm's own start);
 *   - `status api -n shop --cluster demo-eu` against DynamoDB Local + the simulated EKS (through EKS:
 *     DescribeCluster, token, the resource GETs), checkout and bundle.
 */
import { execFile, execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { bundleCli } from "../bin/lib/bundle.ts";
import { startDemoStack } from "../local/demo/stack.ts";
import { median, spread } from "./lib.ts";

const run = promisify(execFile);
const ROOT = new URL("..", import.meta.url).pathname;
const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 15);
const node24 = process.execPath;
const systemNode = ["/usr/bin/node", "/usr/local/bin/node"].find((path) => {
  try {
    return Number(execFileSync(path, ["-p", "process.versions.node.split('.')[0]"], { encoding: "utf8" })) < 24;
  } catch {
    return false;
  }
});

// The packed layout: what `npm install -g TARBALL` puts under lib/node_modules/helm-status-lambda/.
const packed = mkdtempSync(join(tmpdir(), "helm-status-cli-bench-"));
mkdirSync(join(packed, "bin"));
cpSync(join(ROOT, "bin", "helm-status.js"), join(packed, "bin", "helm-status.js"));
await bundleCli(join(packed, "dist", "cli"));

const stack = await startDemoStack({ dataDir: join(packed, "dynamodb"), table: "cli-bench" });
const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: packed, ...stack.env };

const status = ["status", "api", "-n", "shop", "--cluster", "demo-eu"];
const variants: { name: string; command: string; args: string[] }[] = [
  { name: "node -e 0 (Node 24)", command: node24, args: ["-e", "0"] },
  { name: "--help, checkout (TypeScript)", command: node24, args: [join(ROOT, "bin", "helm-status.js"), "--help"] },
  { name: "--help, packed (bundle)", command: node24, args: [join(packed, "bin", "helm-status.js"), "--help"] },
  ...(systemNode
    ? [
        { name: `node -e 0 (system ${systemNode})`, command: systemNode, args: ["-e", "0"] },
        {
          name: "--help, packed, system Node re-running Node 24",
          command: systemNode,
          args: [join(packed, "bin", "helm-status.js"), "--help"],
        },
      ]
    : []),
  { name: "npm run --silent cli -- --help", command: "npm", args: ["run", "--silent", "cli", "--", "--help"] },
  { name: "status, checkout", command: node24, args: [join(ROOT, "bin", "helm-status.js"), ...status] },
  { name: "status, packed", command: node24, args: [join(packed, "bin", "helm-status.js"), ...status] },
];

const samples = new Map(variants.map((v) => [v.name, [] as number[]]));
try {
  for (let i = 0; i < RUNS; i++) {
    for (const variant of variants) {
      const started = performance.now();
      const { stdout } = await run(variant.command, variant.args, {
        cwd: ROOT,
        env: { ...env, HELM_STATUS_NODE: node24, PATH: `${join(ROOT, "node_modules", ".bin")}:${env.PATH}` },
        timeout: 60_000,
      });
      const ms = performance.now() - started;
      if (variant.args.includes("status") && !stdout.includes("NAME: api"))
        throw new Error(`${variant.name}: ${stdout}`);
      samples.get(variant.name)!.push(ms);
    }
  }
} finally {
  await stack.stop();
  rmSync(packed, { recursive: true, force: true });
}

const base = median(samples.get(variants[0].name)!);
process.stdout.write(`CLI start (${RUNS} interleaved runs each, median ms and ratio to node -e 0 on Node 24)\n`);
for (const variant of variants) {
  const values = samples.get(variant.name)!;
  const ms = median(values);
  process.stdout.write(
    `  ${variant.name.padEnd(50)} ${ms.toFixed(0).padStart(6)} ms  (${spread(values)})  ${(ms / base).toFixed(2)}x\n`,
  );
}
