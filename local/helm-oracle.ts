/**
 * The real helm v4 binary (from the kubectl layer zip) run against the
 * simulated EKS, as an oracle for the tests and the benchmark. Helm reads the
 * release from its own storage, so the release is also written into the cluster
 * as Helm's Secret. Test tooling only: the kubeconfig file it writes lives in a
 * temporary directory that is removed afterwards.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { helmPath } from "./kube-tools.ts";

const run = promisify(execFile);

/** The real helm v4 binary (unpacked once from the kubectl layer package by kube-tools.ts). */
export const helmBinary = helmPath;

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
