/**
 * `npm run build:cli` (and `npm pack`'s prepack): the CLI as plain ESM for the npm tarball, so the installed
 * `helm-status` needs neither TypeScript nor any runtime dependency. One entry per command keeps the lazy
 * loading of bin/cli.ts: `--help` loads dist/cli/cli.mjs and the chunks it imports, not the AWS SDK. The
 * layout (cli.mjs beside commands/NAME.mjs) is the one bin/lib/commands.ts looks for. The embedded DynamoDB
 * Local is swapped for bin/lib/embedded-unavailable.ts (its jar is a devDependency), and the build fails if
 * anything of the simulator (local/sim/) would be bundled.
 */
import { chmodSync, cpSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Metafile, type Plugin } from "esbuild";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const BUNDLE_DIR = join(ROOT, "dist", "cli");

const checkoutOnly: Plugin = {
  name: "checkout-only",
  setup(build) {
    build.onResolve({ filter: /\/local\/dynamodb-(local|data-lock)\.ts$/ }, () => ({
      path: join(ROOT, "bin", "lib", "embedded-unavailable.ts"),
    }));
  },
};

/**
 * What the bundle needs on Node 20 and 22 that they lack (undici 8 is written for Node 22.19+), in every output
 * file before its code, each only where it is missing:
 * - zlib.createZstdDecompress (Node 22.15+), read by undici when it loads: kube-apiservers answer gzip, never
 *   zstd, so on an older Node it is a function that says why it cannot decompress, instead of a crash at load;
 * - worker_threads.markAsUncloneable (Node 22.10+), called by undici's fetch classes so a worker cannot clone
 *   them: a no-op where it is missing (the CLI posts nothing to workers).
 */
const OLDER_NODE =
  'const __zl=require("node:zlib");__zl.createZstdDecompress??=()=>{throw new Error("a zstd-encoded answer needs Node 22.15 or newer")};' +
  'const __wt=require("node:worker_threads");__wt.markAsUncloneable??=()=>{};';

export async function bundleCli(outdir = BUNDLE_DIR): Promise<Metafile> {
  rmSync(outdir, { recursive: true, force: true });
  const commands = readdirSync(join(ROOT, "bin", "commands"))
    .filter((file) => file.endsWith(".ts"))
    .map((file) => join(ROOT, "bin", "commands", file));
  const result = await build({
    entryPoints: [join(ROOT, "bin", "cli.ts"), ...commands],
    outbase: join(ROOT, "bin"),
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    // The packed CLI runs on Node 20, 22 and 24 (package.json "engines"; test/dist/package.test.ts runs it on each).
    target: "node20",
    // ESM builds where packages have them (the AWS SDK): smaller, and named exports of a dynamic import() intact.
    mainFields: ["module", "main"],
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunks/[name]-[hash]",
    minify: true,
    keepNames: true,
    legalComments: "eof",
    metafile: true,
    logLevel: "warning",
    // CommonJS packages in the bundle (the AWS SDK's, the kubernetes client's) call require() for Node's modules.
    banner: { js: `import{createRequire as __cr}from"node:module";const require=__cr(import.meta.url);${OLDER_NODE}` },
    plugins: [checkoutOnly],
  });
  const simulator = Object.keys(result.metafile.inputs).filter((input) => input.includes("local/sim/"));
  if (simulator.length > 0) throw new Error(`the CLI bundle must not contain the simulator: ${simulator.join(", ")}`);
  return result.metafile;
}

/**
 * The Helm plugin as one self-contained folder (`npm run build:plugin`): plugin.yaml and fleet.sh with the
 * launcher and the bundle inside, in the npm package's layout, for `helm plugin package DIR` (signed with your
 * key, or --sign=false) and `helm plugin install fleet-VERSION.tgz`.
 */
export async function buildPluginDir(outdir = join(ROOT, "dist", "helm-fleet")): Promise<string> {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(join(outdir, "bin"), { recursive: true });
  for (const file of ["plugin.yaml", "fleet.sh"]) cpSync(join(ROOT, "helm-plugin", file), join(outdir, file));
  cpSync(join(ROOT, "bin", "helm-status.js"), join(outdir, "bin", "helm-status.js"));
  chmodSync(join(outdir, "fleet.sh"), 0o755);
  await bundleCli(join(outdir, "dist", "cli"));
  return outdir;
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === "--plugin") {
  process.stderr.write(`${relative(ROOT, await buildPluginDir())}: the helm plugin folder (helm plugin package DIR)\n`);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const metafile = await bundleCli();
  const bytes = Object.values(metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
  const files = Object.keys(metafile.outputs).length;
  // stderr: `npm pack --json` prints its answer on stdout after this script.
  process.stderr.write(`${relative(ROOT, BUNDLE_DIR)}: ${files} files, ${(bytes / 1024).toFixed(0)} KiB\n`);
}
