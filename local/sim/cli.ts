#!/usr/bin/env node
/**
 * `npm run --silent sim -- --out DIR [--clusters a,b] [--latency-ms N] [--seed [CLUSTER=]FILE ...]`
 * Starts the simulated EKS, writes DIR/<cluster>.kubeconfig and DIR/env.json, prints a
 * summary and runs until SIGINT/SIGTERM. Tokens live 15 minutes, so the kubeconfig files
 * are rewritten every 10 minutes while it runs.
 */
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { processIO, reportError, type SimIO } from "./cli-io.ts";
import { SimulatorSetupError } from "./errors.ts";
import { type SimulatedEks, startSimulatedEks } from "./index.ts";
import { parseObjects } from "./manifests.ts";

const USAGE = `usage: npm run --silent sim -- --out DIR [--clusters a,b] [--latency-ms N] [--region R] [--seed [CLUSTER=]FILE ...]

Starts a simulated EKS on 127.0.0.1 (one HTTPS API server per cluster, EKS and STS endpoints),
writes DIR/<cluster>.kubeconfig and DIR/env.json, and runs until Ctrl-C (SIGINT) or SIGTERM.
--seed loads YAML into every cluster (or only CLUSTER): objects with a status are stored as
given (kubectl get -o yaml dumps); a manifest without status is turned into live state.`;

const KUBECONFIG_REFRESH_MS = 10 * 60_000;

export async function run(args: string[], io: SimIO, stopSignal: Promise<unknown>): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      out: { type: "string" },
      clusters: { type: "string", default: "sim" },
      "latency-ms": { type: "string", default: "0" },
      region: { type: "string" },
      seed: { type: "string", multiple: true, default: [] },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (!values.out) throw new SimulatorSetupError("--out DIR is required (where the kubeconfig files and env.json go)");
  const latencyMs = Number(values["latency-ms"]);
  if (!/^\d+$/.test(values["latency-ms"] ?? "") || latencyMs > 60_000) {
    throw new SimulatorSetupError(
      `--latency-ms must be a whole number of milliseconds up to 60000, not "${values["latency-ms"]}"`,
    );
  }
  const names = (values.clusters ?? "")
    .split(",")
    .map((n) => n.trim())
    .filter(Boolean);
  if (names.length === 0) throw new SimulatorSetupError("--clusters needs at least one cluster name");
  const seeds = await readSeeds(values.seed ?? [], names);
  const out = resolve(values.out);
  await mkdir(out, { recursive: true });

  const sim = await startSimulatedEks({ clusters: names.map((name) => ({ name })), latencyMs, region: values.region });
  let refresh: NodeJS.Timeout | undefined;
  try {
    for (const seed of seeds) {
      for (const cluster of seed.cluster ? [sim.cluster(seed.cluster)] : sim.clusters()) {
        const hasStatus = seed.objects.some((o) => o.status !== undefined);
        if (hasStatus) cluster.apply(seed.objects);
        else cluster.materialize(seed.text);
      }
    }
    await writeFiles(sim, out);
    refresh = setInterval(() => {
      writeFiles(sim, out).catch((error) =>
        io.stderr.write(`warning: could not refresh kubeconfig files: ${error.message}\n`),
      );
    }, KUBECONFIG_REFRESH_MS);
    io.stdout.write(summary(sim, out, seeds.length, latencyMs));
    await stopSignal;
    io.stdout.write("stopping the simulated EKS\n");
    return 0;
  } finally {
    if (refresh) clearInterval(refresh);
    await sim.stop();
  }
}

async function readSeeds(specs: string[], clusters: string[]) {
  const seeds = [];
  for (const spec of specs) {
    const eq = spec.indexOf("=");
    const target = eq > 0 && clusters.includes(spec.slice(0, eq)) ? spec.slice(0, eq) : undefined;
    const file = target ? spec.slice(eq + 1) : spec;
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      throw new SimulatorSetupError(`cannot read seed file ${file}: ${(error as Error).message}`, { cause: error });
    }
    seeds.push({ cluster: target, text, objects: parseObjects(text, file) });
  }
  return seeds;
}

/** Writes each file under a temporary name then renames it, so readers never see half a kubeconfig. */
async function writeFiles(sim: SimulatedEks, out: string): Promise<void> {
  const write = async (name: string, content: string) => {
    const temporary = join(out, `.${name}.tmp-${process.pid}`);
    await writeFile(temporary, content, { mode: 0o600 });
    await chmod(temporary, 0o600);
    await rename(temporary, join(out, name));
  };
  for (const cluster of sim.clusters()) await write(`${cluster.name}.kubeconfig`, cluster.kubeconfig());
  await write(
    "env.json",
    `${JSON.stringify({ clusters: sim.registryEntries(), logsEndpoint: sim.logsEndpoint, credentials: sim.credentials }, null, 2)}\n`,
  );
}

function summary(sim: SimulatedEks, out: string, seedCount: number, latencyMs: number): string {
  const lines = [
    `simulated EKS running (${sim.clusters().length} cluster${sim.clusters().length === 1 ? "" : "s"}${latencyMs ? `, +${latencyMs} ms per request` : ""}${seedCount ? `, ${seedCount} seed file(s)` : ""})`,
    `  EKS endpoint: ${sim.eksEndpoint}`,
    `  STS endpoint: ${sim.stsEndpoint}`,
    `  CloudWatch Logs endpoint: ${sim.logsEndpoint} (the clusters' audit logs)`,
    ...sim
      .clusters()
      .map(
        (c) =>
          `  cluster ${c.name} (${c.region}, Kubernetes ${c.version}): ${c.server}  kubeconfig ${join(out, `${c.name}.kubeconfig`)}`,
      ),
    `  env: ${join(out, "env.json")} (registry entries and the IAM user's keys)`,
    `try: KUBECONFIG=${join(out, `${sim.clusters()[0].name}.kubeconfig`)} kubectl get ns`,
    "Ctrl-C to stop",
    "",
  ];
  return lines.join("\n");
}

if (import.meta.main) {
  const stopSignal = new Promise<string>((resolveStop) => {
    process.once("SIGINT", () => resolveStop("SIGINT"));
    process.once("SIGTERM", () => resolveStop("SIGTERM"));
  });
  try {
    process.exitCode = await run(process.argv.slice(2), processIO, stopSignal);
  } catch (error) {
    process.exitCode = reportError(error, processIO);
  }
}
