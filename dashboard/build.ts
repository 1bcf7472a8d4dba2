#!/usr/bin/env node
/**
 * Builds the dashboard's client (`node dashboard/build.ts`, run by `npm start`, `npm run package` and the
 * bench): one minified ESM bundle and its stylesheet with content-hashed names, and an index.html naming
 * them, in dashboard/dist/. Returns (and, run as a script, prints) the files and their sizes.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const here = fileURLToPath(new URL(".", import.meta.url));

export interface BuiltDashboard {
  dir: string;
  files: { name: string; bytes: number; gzipBytes: number }[];
}

export async function buildDashboard(outDir = join(here, "dist")): Promise<BuiltDashboard> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(join(outDir, "assets"), { recursive: true });
  const result = await build({
    entryPoints: { app: join(here, "src/main.tsx") },
    outdir: join(outDir, "assets"),
    entryNames: "[name]-[hash]",
    bundle: true,
    minify: true,
    format: "esm",
    target: ["es2022"],
    platform: "browser",
    jsx: "automatic",
    jsxImportSource: "preact",
    metafile: true,
    legalComments: "none",
    logLevel: "warning",
  });
  const outputs = Object.keys(result.metafile.outputs).map((path) => basename(path));
  const script = outputs.find((name) => name.endsWith(".js"));
  const style = outputs.find((name) => name.endsWith(".css"));
  if (!script) throw new Error("esbuild wrote no script");
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>helm status</title>
<link rel="icon" href="data:,">
${style ? `<link rel="stylesheet" href="assets/${style}">` : ""}
<script type="module" src="assets/${script}"></script>
</head>
<body>
<div id="app"><p>loading…</p></div>
</body>
</html>
`;
  writeFileSync(join(outDir, "index.html"), html);
  const files = ["index.html", ...outputs.map((name) => `assets/${name}`)].map((name) => {
    const body = readFileSync(join(outDir, name));
    return { name, bytes: body.length, gzipBytes: gzipSync(body, { level: 9 }).length };
  });
  return { dir: outDir, files };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const built = await buildDashboard(process.argv[2]);
  for (const f of built.files) process.stdout.write(`${f.name}  ${f.bytes} B  (${f.gzipBytes} B gzip)\n`);
}
