import { build } from "esbuild";
const r = await build({ entryPoints: ["functions/api/handler.ts"], bundle: true, platform: "node", format: "esm", target: "node24", write: false, outfile: "x.mjs", external: ["@aws-sdk/*"], metafile: true, logLevel: "error" });
const out = Object.values(r.metafile.outputs)[0];
const rows = Object.entries(out.inputs).filter(([k]) => k.includes(process.argv[2])).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput).slice(0, 25);
for (const [k, v] of rows) console.log((v.bytesInOutput / 1024).toFixed(0).padStart(6), k.replace(/.*node_modules\//, ""));
