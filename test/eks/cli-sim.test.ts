/**
 * The `token` and `kubeconfig` commands against the simulated EKS: the printed kubeconfig
 * holds no token and works with the real kubectl (when installed) and with the
 * kubeconfig-file connector, both running `token` as their exec plugin.
 */
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { KubeConfig, VersionApi } from "@kubernetes/client-node";
import { parse } from "yaml";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { createKubeconfigFileConnector } from "../../shared/clusters/kubeconfig-file-connector.ts";
import { decodeEksToken } from "../../shared/eks/token.ts";

const run = promisify(execFile);
const kubectlPresent = spawnSync("kubectl", ["version", "--client"], { stdio: "ignore" }).status === 0;
let sim: SimulatedEks;
let dir: string;
let env: Record<string, string>;

before(async () => {
  sim = await startSimulatedEks({ clusters: [{ name: "alpha", region: "eu-west-1" }] });
  dir = mkdtempSync(join(tmpdir(), "eks-cli-test-"));
  env = {
    PATH: process.env.PATH ?? "",
    HOME: dir,
    AWS_EC2_METADATA_DISABLED: "true",
    AWS_ACCESS_KEY_ID: sim.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: sim.credentials.secretAccessKey,
    CLUSTERS: JSON.stringify(sim.registryEntries()),
  };
});

after(async () => {
  await sim?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const cli = (args: string[], extra: Record<string, string> = {}) =>
  run(process.execPath, ["bin/cli.ts", ...args], { env: { ...env, ...extra }, encoding: "utf8", timeout: 30_000 });

async function versionWithToken(token: string): Promise<string> {
  const kubeConfig = new KubeConfig();
  const cluster = sim.cluster("alpha");
  kubeConfig.loadFromOptions({
    clusters: [{ name: "a", server: cluster.server, caData: cluster.caData, skipTLSVerify: false }],
    users: [{ name: "a", token }],
    contexts: [{ name: "a", cluster: "a", user: "a" }],
    currentContext: "a",
  });
  return (await kubeConfig.makeApiClient(VersionApi).getCode()).gitVersion;
}

test("token from the registry (with a role, via the registry's stsEndpoint) is accepted by the API server", async () => {
  const roleArn = `arn:aws:iam::${sim.iam.account}:role/cli-reader`;
  sim.iam.addRole(roleArn, { externalId: "cli-ext" });
  const clusters = JSON.stringify(sim.registryEntries().map((entry) => ({ ...entry, roleArn, externalId: "cli-ext" })));
  const { stdout } = await cli(["token", "--cluster", "alpha"], { CLUSTERS: clusters });
  const credential = JSON.parse(stdout);
  assert.deepEqual(Object.keys(credential), ["kind", "apiVersion", "spec", "status"]);
  const url = decodeEksToken(credential.status.token);
  assert.equal(url.host, "sts.eu-west-1.amazonaws.com");
  assert.ok(url.searchParams.get("X-Amz-Security-Token"), "signed by the assumed role");
  assert.match(await versionWithToken(credential.status.token), /-eks-/);
});

test("kubeconfig prints server and CA from DescribeCluster and an exec plugin, never a token", async () => {
  const { stdout } = await cli(["kubeconfig", "--cluster", "alpha"]);
  assert.doesNotMatch(stdout, /k8s-aws-v1|token:/);
  const config = parse(stdout);
  assert.equal(config.clusters[0].cluster.server, sim.cluster("alpha").server);
  assert.equal(config.clusters[0].cluster["certificate-authority-data"], sim.cluster("alpha").caData);
  const exec = config.users[0].user.exec;
  assert.equal(exec.command, process.execPath);
  assert.deepEqual(exec.args.slice(1), ["token", "--cluster", "alpha", "--region", "eu-west-1"]);
  assert.deepEqual(exec.env, [{ name: "CLUSTERS", value: JSON.stringify(sim.registryEntries()) }]);
  writeFileSync(join(dir, "alpha.kubeconfig"), stdout);
});

test("the kubeconfig works with the real kubectl", { skip: !kubectlPresent && "no kubectl" }, async () => {
  const file = join(dir, "alpha.kubeconfig");
  const { stdout } = await cli(["kubeconfig", "--cluster", "alpha"]);
  writeFileSync(file, stdout);
  const result = await run("kubectl", ["--kubeconfig", file, "version", "-o", "json"], {
    env: { ...env, CLUSTERS: "" },
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.match(JSON.parse(result.stdout).serverVersion.gitVersion, /-eks-/);
});

test("the kubeconfig works through the kubeconfig-file connector (client-node runs the exec plugin)", async () => {
  const file = join(dir, "alpha-file.kubeconfig");
  writeFileSync(file, (await cli(["kubeconfig", "--cluster", "alpha"])).stdout);
  // client-node starts the exec plugin with this process's environment: lend it the simulator's keys.
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
  process.env.AWS_ACCESS_KEY_ID = sim.credentials.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = sim.credentials.secretAccessKey;
  try {
    const connector = createKubeconfigFileConnector({ path: file });
    assert.equal(connector.cluster, "alpha");
    const kubeConfig = await connector.kubeConfig(connector.cluster);
    assert.match((await kubeConfig.makeApiClient(VersionApi).getCode()).gitVersion, /-eks-/);
  } finally {
    if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
    else process.env.AWS_ACCESS_KEY_ID = saved.id;
    if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
    else process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
  }
});

test("kubeconfig for a cluster EKS does not know fails with one clear line", async () => {
  const clusters = JSON.stringify([{ ...sim.registryEntries()[0], name: "ghost" }]);
  await assert.rejects(
    cli(["kubeconfig", "--cluster", "ghost"], { CLUSTERS: clusters }),
    (error: { code: number; stderr: string }) => {
      assert.equal(error.code, 1);
      assert.match(
        error.stderr,
        /^Error: cluster "ghost" does not exist in EKS region eu-west-1 .*ResourceNotFoundException/,
      );
      assert.equal(error.stderr.trim().split("\n").length, 1);
      return true;
    },
  );
});
