import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { KubeConfig } from "@kubernetes/client-node";
import { SIM_CLI, spawnNode, startNode } from "../support/cli.ts";
import { call } from "./helpers.ts";

const seed = fileURLToPath(new URL("./fixtures/helm-create-demo.yaml", import.meta.url));

test("sim command: kubeconfig files and env.json, a working cluster, exit 0 on SIGTERM", async () => {
  const out = await mkdtemp(join(tmpdir(), "sim-cli-"));
  const { child, output, exited } = startNode(SIM_CLI, [
    "--out",
    out,
    "--clusters",
    "one,two",
    "--seed",
    `two=${seed}`,
  ]);
  try {
    for (let i = 0; i < 300 && !output.stdout.includes("Ctrl-C to stop"); i++) {
      if (child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.match(output.stdout, /simulated EKS running \(2 clusters, 1 seed file\(s\)\)/, output.stderr);
    const env = JSON.parse(await readFile(join(out, "env.json"), "utf8"));
    assert.deepEqual(
      env.clusters.map((c: { name: string; region: string }) => [c.name, c.region]),
      [
        ["one", "us-east-1"],
        ["two", "us-east-1"],
      ],
    );
    assert.match(env.clusters[0].eksEndpoint, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.match(env.logsEndpoint, /^http:\/\/127\.0\.0\.1:\d+$/);
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
    assert.equal(code, 0, output.stderr);
  }
  assert.match(output.stdout, /stopping the simulated EKS/);
});

test("sim command: a bad flag is one clear line and exit 2", async () => {
  const { code, stderr } = await spawnNode(SIM_CLI, ["--out", tmpdir(), "--latency-ms", "soon"]);
  assert.equal(code, 2);
  assert.equal(stderr, 'Error: --latency-ms must be a whole number of milliseconds up to 60000, not "soon"\n');
});
