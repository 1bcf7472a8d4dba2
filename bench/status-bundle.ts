/**
 * Bench section: the Lambda bundle as serverless.yml's custom.esbuild builds it
 * (the same esbuild options, read from the file), its size unzipped and zipped
 * (deflate level 9, what a zip holds), and the cold import of the handler
 * module against a bare `@aws-sdk/client-dynamodb` import, side by side in
 * fresh processes; also a source-mapped build imported with
 * --enable-source-maps, to show what maps would cost.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { deflateRawSync } from "node:zlib";
import { build, type Plugin } from "esbuild";
import { parseDocument } from "yaml";
import { median, spread } from "./lib.ts";
import { type LambdaColdSetup, lambdaColdStarts } from "./status-lambda-cold.ts";

const run = promisify(execFile);
const ROOT = new URL("..", import.meta.url).pathname;
/** Inside the repo, so the external @aws-sdk/* resolve from node_modules as the runtime's would. */
const OUT = join(ROOT, ".build", "bench-bundle");
const IMPORT_RUNS = 9;

export interface BundleFigures {
  lines: string[];
  zippedMb: number;
  importRatio: number;
  /** Import + first status in a fresh process over the cold floor (when a cold-start setup was given). */
  coldStartOverFloor?: number;
}

export interface EsbuildSettings {
  minify?: boolean;
  keepNames?: boolean;
  sourcemap?: boolean;
  target?: string;
  exclude?: string[];
  banner?: { js?: string };
  alias?: Record<string, string>;
}

export function serverlessEsbuild(): EsbuildSettings {
  const doc = parseDocument(readFileSync(join(ROOT, "serverless.yml"), "utf8"), { logLevel: "silent" });
  return (doc.getIn(["custom", "esbuild"]) as { toJSON(): EsbuildSettings }).toJSON();
}

/** `plugins`: the MCP bench builds the same bundle without the MCP tools to weigh them (mcp.bench.ts). */
export async function bundle(
  outfile: string,
  settings: EsbuildSettings,
  sourcemap: boolean,
  plugins: Plugin[] = [],
): Promise<void> {
  await build({
    entryPoints: [join(ROOT, "functions/api/handler.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: settings.target ?? "node24",
    outfile,
    external: settings.exclude ?? ["@aws-sdk/*"],
    minify: settings.minify ?? false,
    keepNames: settings.keepNames ?? false,
    sourcemap,
    banner: settings.banner?.js ? { js: settings.banner.js } : undefined,
    alias: settings.alias,
    absWorkingDir: ROOT,
    logLevel: "error",
    plugins,
  });
}

interface ImportTime {
  ms: number;
  /** CPU of the importing thread (user + system): steadier than wall time on a shared machine. */
  cpuMs: number;
}

/** Time to import `specifier` in a fresh node process (module graph only: the process start is not counted). */
async function importMs(specifier: string, flags: string[] = []): Promise<ImportTime> {
  const script = `const c=process.threadCpuUsage();const t=performance.now();await import(${JSON.stringify(specifier)});const u=process.threadCpuUsage(c);process.stdout.write(JSON.stringify({ms:performance.now()-t,cpuMs:(u.user+u.system)/1000}))`;
  const { stdout } = await run(process.execPath, [...flags, "--input-type=module", "-e", script], {
    cwd: OUT,
    timeout: 60_000,
    // What the handler reads at init; nothing is contacted at import time.
    env: { PATH: process.env.PATH ?? "", AWS_REGION: "eu-west-1", CLUSTERS: "[]", POWERTOOLS_LOG_LEVEL: "SILENT" },
  });
  return JSON.parse(stdout) as ImportTime;
}

/** With `coldStart`, also a Lambda cold start end to end on the same bundle (status-lambda-cold.ts). */
export async function bundleFigures(
  coldStart?: Omit<LambdaColdSetup, "bundleDir" | "sdkImportMs">,
): Promise<BundleFigures> {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const settings = serverlessEsbuild();
  const plain = join(OUT, "handler.mjs");
  const mapped = join(OUT, "mapped", "handler.mjs");
  await bundle(plain, settings, Boolean(settings.sourcemap));
  await bundle(mapped, settings, true);
  const size = statSync(plain).size;
  const zipped = deflateRawSync(readFileSync(plain), { level: 9 }).length;
  const mapSize = statSync(`${mapped}.map`).size;
  const mapZipped = deflateRawSync(readFileSync(`${mapped}.map`), { level: 9 }).length;

  const handler: ImportTime[] = [];
  const sdk: ImportTime[] = [];
  const withMaps: ImportTime[] = [];
  for (let i = 0; i < IMPORT_RUNS; i++) {
    // Interleaved, so load changes on a shared machine hit all three alike.
    sdk.push(await importMs("@aws-sdk/client-dynamodb"));
    handler.push(await importMs("./handler.mjs"));
    withMaps.push(await importMs("./mapped/handler.mjs", ["--enable-source-maps"]));
  }
  const wall = (runs: ImportTime[]) => runs.map((run) => run.ms);
  const cpu = (runs: ImportTime[]) => median(runs.map((run) => run.cpuMs));
  const h = median(wall(handler));
  const s = median(wall(sdk));
  const m = median(wall(withMaps));
  const cold = coldStart ? await lambdaColdStarts({ ...coldStart, bundleDir: OUT, sdkImportMs: s }) : undefined;
  rmSync(OUT, { recursive: true, force: true });
  const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(2);
  return {
    zippedMb: zipped / 2 ** 20,
    importRatio: h / s,
    coldStartOverFloor: cold?.totalOverFloor,
    lines: [
      `bundle (serverless.yml custom.esbuild: minify ${settings.minify ?? false}, keepNames ${settings.keepNames ?? false}, sourcemap ${settings.sourcemap ?? false}) and cold import, median (min–max) of ${IMPORT_RUNS} fresh processes`,
      `  API handler bundle          ${mb(size)} MB, ${mb(zipped)} MB zipped (a source map would add ${mb(mapSize)} MB, ${mb(mapZipped)} MB zipped)`,
      `  import handler.mjs          ${h.toFixed(0).padStart(6)} ms  (${spread(wall(handler))})  thread CPU ${cpu(handler).toFixed(0)} ms`,
      `  import @aws-sdk/client-dynamodb ${s.toFixed(0).padStart(2)} ms  (${spread(wall(sdk))})  thread CPU ${cpu(sdk).toFixed(0)} ms  (bare SDK client, the baseline)`,
      `  import with source maps     ${m.toFixed(0).padStart(6)} ms  (${spread(wall(withMaps))})  (--enable-source-maps, mapped build)`,
      `  handler / SDK import: ${(h / s).toFixed(2)}x wall, ${(cpu(handler) / cpu(sdk)).toFixed(2)}x thread CPU`,
      ...(cold?.lines ?? []),
    ],
  };
}
