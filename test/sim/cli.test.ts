import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { KubeConfig } from "@kubernetes/client-node";
import { call } from "./helpers.ts";

const cli = fileURLToPath(new URL("../../local/sim/cli.ts", import.meta.url));
const seed = fileURLToPath(new URL("./fixtures/helm-create-demo.yaml", import.meta.url));

test("sim command: kubeconfig files and env.json, a working cluster, exit 0 on SIGTERM", async () => {
  const out = await mkdtemp(join(tmpdir(), "sim-cli-"));
  const child = spawn(process.execPath, [cli, "--out", out, "--clusters", "one,two", "--seed", `two=${seed}`], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c) => {
    stdout += c;
  });
  child.stderr.on("data", (c) => {
    stderr += c;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  try {
    for (let i = 0; i < 300 && !stdout.includes("Ctrl-C to stop"); i++) {
      if (child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.match(stdout, /simulated EKS running \(2 clusters, 1 seed file\(s\)\)/, stderr);
    const env = JSON.parse(await readFile(join(out, "env.json"), "utf8"));
    assert.deepEqual(
      env.clusters.map((c: { name: string; region: string }) => [c.name, c.region]),
      [
        ["one", "us-east-1"],
        ["two", "us-east-1"],
      ],
    );
    assert.match(env.clusters[0].eksEndpoint, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.match(env.credentials.accessKeyId, /^AKIA/);
    assert.equal((await stat(join(out, "two.kubeconfig"))).mode & 0o777, 0o600);
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(await readFile(join(out, "two.kubeconfig"), "utf8"));
    const server = kubeConfig.getCurrentCluster()?.server as string;
    const cluster = {
      server,
      caData: kubeConfig.getCurrentCluster()?.caData as string,
      token: () => kubeConfig.getCurrentUser()?.token as string,
    };
    // biome-ignore lint/suspicious/noExplicitAny: a stand-in with the three fields call() reads
    const deployments = await call(cluster as any, "/apis/apps/v1/namespaces/default/deployments/demo");
    assert.equal(deployments.json.status.readyReplicas, 1, "the seed manifest was materialized");
  } finally {
    child.kill("SIGTERM");
    const code = await exited;
    await rm(out, { recursive: true, force: true });
    assert.equal(code, 0, stderr);
  }
  assert.match(stdout, /stopping the simulated EKS/);
});

test("sim command: a bad flag is one clear line and exit 2", async () => {
  const child = spawn(process.execPath, [cli, "--out", tmpdir(), "--latency-ms", "soon"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (c) => {
    stderr += c;
  });
  const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
  assert.equal(code, 2);
  assert.equal(stderr, 'Error: --latency-ms must be a whole number of milliseconds up to 60000, not "soon"\n');
});
