/**
 * Comparing the real helm with this product on one HelmStack: helm and the CLI run with the stack's HOME and
 * kubeconfig, and every comparison is counted (how many were byte-equal as printed) for the suite's summary line.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { renderStructured } from "../../shared/render/index.ts";
import { type Run, runCli } from "./cli.ts";
import type { HelmStack } from "./helm-stack.ts";
import { kubeToolsEnv } from "./kube-tools.ts";

const exec = promisify(execFile);

export interface HelmCompare {
  runHelm(args: string[]): Promise<Run>;
  helmOk(args: string[]): Promise<string>;
  cli(args: string[], stdin?: string): Promise<Run>;
  cliOk(args: string[]): Promise<string>;
  /** `ours` must equal `theirs` after the documented differences (`normalize`, when given). */
  sameAsHelm(ours: string, theirs: string, label: string, normalize?: (text: string) => string): void;
  /** `# fidelity: …` for the suite's output (empty when nothing was compared). */
  summary(): string;
}

export function helmCompare(helm: string, stack: HelmStack): HelmCompare {
  const env = kubeToolsEnv(stack.home, stack.kubeconfig);
  const tally = { comparisons: 0, byteEqual: 0 };
  const runHelm = async (args: string[]): Promise<Run> => {
    try {
      const { stdout, stderr } = await exec(helm, args, { env, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof e.code === "number" ? e.code : 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
    }
  };
  const cli = (args: string[], stdin = "") => runCli(args, stack.cliEnv, { stdin });
  return {
    runHelm,
    async helmOk(args) {
      const run = await runHelm(args);
      assert.equal(run.code, 0, `helm ${args.join(" ")}: ${run.stderr}`);
      return run.stdout;
    },
    cli,
    async cliOk(args) {
      const run = await cli(args);
      assert.equal(run.code, 0, `cli ${args.join(" ")}: ${run.stderr}`);
      return run.stdout;
    },
    sameAsHelm(ours, theirs, label, normalize) {
      tally.comparisons++;
      if (ours === theirs) tally.byteEqual++;
      assert.equal(normalize ? normalize(ours) : ours, theirs, label);
    },
    summary() {
      if (tally.comparisons === 0) return "";
      const after = tally.comparisons - tally.byteEqual;
      return `# fidelity: ${tally.comparisons} helm-vs-product comparisons, ${tally.byteEqual} byte-equal as printed, ${after} equal after the documented differences\n`;
    },
  };
}

/** The product's own top-level keys of a status document (documented additions). */
export const ADDED_KEYS = [
  "cluster",
  "observedAt",
  "health",
  "missing",
  "complete",
  "counters",
  "drift",
  "freshness",
  "outsideAccess",
  "causes",
  "events",
  "groups",
];

/** Our `-o json` status document minus the product's own top-level keys, re-encoded as Go's encoder writes it. */
export function withoutJsonAdditions(json: string): string {
  const document = JSON.parse(json) as Record<string, unknown>;
  for (const key of ADDED_KEYS) delete document[key];
  return renderStructured(document, "json");
}

/** Our `-o yaml` status document minus the product's own top-level keys. */
export function withoutYamlAdditions(yaml: string): string {
  const added = new Set(ADDED_KEYS);
  const out: string[] = [];
  let skipping = false;
  for (const line of yaml.split("\n")) {
    const key = /^([A-Za-z_]+):/.exec(line)?.[1];
    if (key !== undefined) skipping = added.has(key);
    if (!skipping) out.push(line);
  }
  return out.join("\n");
}

/** Our status text minus the product's own lines (HEALTH, STORED, and DRIFT with its section: docs/drift.md). */
export function withoutTextAdditions(text: string): string {
  return text
    .replace(/^HEALTH: .*\n/m, "")
    .replace(/^STORED: .*\n/m, "")
    .replace(/^DRIFT: .*\n/m, "")
    .replace(/^==> (HEALTH|DRIFT|WHY|EVENTS)\n(?:.+\n)*\n/gm, "");
}
