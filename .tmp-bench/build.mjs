import { build } from "esbuild";
const minify = process.argv.includes("--minify");
const out = process.argv[2];
const r = await build({
  entryPoints: ["functions/api/handler.ts"],
  bundle: true, platform: "node", format: "esm", target: "node24", outfile: out,
  external: ["@aws-sdk/*"], minify, keepNames: minify, sourcemap: process.argv.includes("--sourcemap"),
  banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  metafile: true, logLevel: "error",
});
const inputs = Object.entries(r.metafile.outputs[out].inputs).map(([k, v]) => [k.split("node_modules/").pop().split("/").slice(0, 2).join("/"), v.bytesInOutput]);
const by = {};
for (const [k, v] of inputs) by[k] = (by[k] ?? 0) + v;
console.log(Object.entries(by).sort((a, b) => b[1] - a[1]).slice(0, 15).map(([k, v]) => `${(v / 1024).toFixed(0).padStart(6)} KB ${k}`).join("\n"));
