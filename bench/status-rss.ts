/**
 * Bench section: peak RSS of `cli status` (a fresh process, as a user runs it)
 * for a release whose manifest is about 5 MB, through --kubeconfig against the
 * simulated cluster and the bench's DynamoDB Local. Peak RSS comes from the
 * child's own process.resourceUsage().maxRSS, printed at exit by a preload.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Release } from "../shared/release/model.ts";
import type { StoreConfig } from "../shared/store/config.ts";
import type { BenchContext } from "./status-cold-scale.ts";

const run = promisify(execFile);
const ROOT = new URL("..", import.meta.url).pathname;

/** `count` ConfigMaps of ~`bytesEach` of data each. */
function bigRelease(count: number, bytesEach: number): Release {
  const filler = "x".repeat(bytesEach);
  let manifest = "";
  for (let i = 0; i < count; i++) {
    manifest += `---\n# Source: big/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big-${i}\ndata:\n  blob: ${filler}\n`;
  }
  return {
    name: "big",
    namespace: "big",
    version: 1,
    info: { status: "deployed", last_deployed: "2026-12-02T14:40:15Z", description: "Install complete" },
    chart: { metadata: { name: "big", version: "0.1.0" } },
    manifest,
    hooks: [],
  };
}

export interface RssFigures {
  lines: string[];
  peakMb: number;
}

/**
 * The node flags `npm run cli` uses (package.json's "cli" script: `node <flags> bin/cli.ts`), so the bench runs
 * the CLI the way a user does. `--max-semi-space-size=1` keeps V8's young generation small: a one-shot CLI does
 * not need a big nursery, and the peak RSS of a 5 MB status drops by ≈ 45 MB at no measurable cost in time.
 */
function cliNodeFlags(): string[] {
  const scripts = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> })
    .scripts;
  const words = scripts.cli.split(/\s+/);
  return words.slice(1, words.indexOf("bin/cli.ts"));
}

export async function cliStatusPeakRss(
  ctx: BenchContext,
  store: StoreConfig,
  nodeFlags: string[] = cliNodeFlags(),
): Promise<RssFigures> {
  const release = bigRelease(1000, 5000);
  const manifestMb = (release.manifest ?? "").length / 2 ** 20;
  await ctx.cluster.materialize(release.manifest ?? "", { namespace: release.namespace });
  await ctx.store.putRevision(ctx.clusterName, release);
  const work = mkdtempSync(join(tmpdir(), "bench-rss-"));
  try {
    // The simulator's kubeconfig (a test cluster's short-lived token), for the child only.
    const kubeconfig = join(work, "kubeconfig");
    writeFileSync(kubeconfig, await ctx.cluster.kubeconfig(), { mode: 0o600 });
    const preload = join(work, "peak.mjs");
    writeFileSync(
      preload,
      `process.on("exit", () => process.stderr.write("\\nmaxRSS " + process.resourceUsage().maxRSS + "\\n"));\n`,
    );
    const { stdout, stderr } = await run(
      process.execPath,
      [
        ...nodeFlags,
        "--import",
        preload,
        join(ROOT, "bin/cli.ts"),
        "status",
        release.name,
        "-n",
        release.namespace,
        "--kubeconfig",
        kubeconfig,
        "--cluster",
        ctx.clusterName,
        "-o",
        "json",
      ],
      {
        cwd: ROOT,
        timeout: 120_000,
        maxBuffer: 1 << 28,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: work,
          HELM_STATUS_STORE: "aws",
          AWS_REGION: store.region,
          AWS_ENDPOINT_URL_DYNAMODB: store.endpoint,
          RELEASES_TABLE: store.tableName,
          AWS_ACCESS_KEY_ID: "bench",
          AWS_SECRET_ACCESS_KEY: "bench",
        },
      },
    );
    const kb = Number(/maxRSS (\d+)/.exec(stderr)?.[1] ?? Number.NaN);
    // Helm's JSON release shape: info.resources is keyed by group ("v1/ConfigMap"), each a list of objects.
    const document = JSON.parse(stdout) as { info?: { resources?: Record<string, unknown[]> } };
    const resources = Object.values(document.info?.resources ?? {}).reduce((n, list) => n + list.length, 0);
    const peakMb = kb / 1024;
    return {
      peakMb,
      lines: [
        `cli status of a ${manifestMb.toFixed(1)} MB manifest (${resources} resources read, -o json), a fresh process (node ${nodeFlags.join(" ")}): peak RSS ${peakMb.toFixed(0)} MB`,
      ],
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
