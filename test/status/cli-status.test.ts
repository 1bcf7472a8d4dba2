import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type DynamoDbLocal, startDynamoDbLocal } from "../../local/dynamodb-local.ts";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { createDynamoDbClient, openReleaseStore, storeConfigFromEnv } from "../../shared/store/config.ts";
import { ensureReleasesTable } from "../../shared/store/table-schema.ts";
import { CLI, runCli, spawnNode } from "../support/cli.ts";
import { kubectlPath } from "../support/kube-tools.ts";
import { capture, demoRelease } from "./captures.ts";

/**
 * `status` end to end: the CLI process, releases in DynamoDB Local, the
 * cluster read through a kubeconfig file of the simulated EKS.
 */

let sim: SimulatedEks;
let dynamo: DynamoDbLocal;
let dir: string;
let kubeconfig: string;
let env: NodeJS.ProcessEnv;

before(async () => {
  [sim, dynamo] = await Promise.all([startSimulatedEks({ clusters: [{ name: "cli" }] }), startDynamoDbLocal({})]);
  dir = mkdtempSync(join(tmpdir(), "status-cli-"));
  kubeconfig = join(dir, "kubeconfig");
  writeFileSync(kubeconfig, sim.cluster("cli").kubeconfig(), { mode: 0o600 });
  env = {
    PATH: process.env.PATH,
    HOME: dir,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "local",
    AWS_SECRET_ACCESS_KEY: "local",
    RELEASES_TABLE: "status-cli-test",
  };
  // In-process runs: the AWS SDK reads its credentials from this process's environment.
  process.env.AWS_ACCESS_KEY_ID = "local";
  process.env.AWS_SECRET_ACCESS_KEY = "local";
  const config = { ...storeConfigFromEnv(env), credentials: { accessKeyId: "local", secretAccessKey: "local" } };
  const client = createDynamoDbClient(config);
  try {
    await ensureReleasesTable(client, config);
  } finally {
    client.destroy();
  }
  await openReleaseStore(config).putRevision("cli", demoRelease());
  sim.cluster("cli").materialize(capture("helm-create-demo-manifest.yaml"));
});

after(async () => {
  await Promise.allSettled([sim?.stop(), dynamo?.stop()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The real process, once: the entry point, lazy command loading, exit code. */
async function spawnCli(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await spawnNode(CLI, ["status", ...args], { env });
  return { status: code, stdout, stderr };
}

/** The same command in-process (no Node start-up per case: the machine is shared). */
async function cli(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await runCli(["status", ...args], env);
  return { status: code, stdout, stderr };
}

test("status --kubeconfig --cluster: Helm's text from the stored release and the live cluster", async () => {
  const result = await spawnCli("demo", "-n", "default", "--kubeconfig", kubeconfig, "--cluster", "cli");
  assert.equal(result.stderr, "");
  assert.equal(result.status, 0);
  assert.match(
    result.stdout,
    /^NAME: demo\nLAST DEPLOYED: Wed Dec {2}2 15:10:00 2026\nNAMESPACE: default\nSTATUS: deployed\nREVISION: 2\n/,
  );
  assert.deepEqual(
    result.stdout.split("\n").filter((line) => line.startsWith("==> ")),
    ["==> v1/ServiceAccount", "==> v1/Service", "==> v1/Deployment", "==> v1/Pod(related)"],
  );
});

test("-o json and -o yaml; --revision", async () => {
  const json = await cli("demo", "--kubeconfig", kubeconfig, "--cluster", "cli", "-o", "json", "--revision", "2");
  assert.equal(json.status, 0, json.stderr);
  const doc = JSON.parse(json.stdout);
  assert.equal(doc.version, 2);
  assert.equal(doc.cluster, "cli");
  assert.deepEqual(Object.keys(doc.info.resources), [
    "v1/Deployment",
    "v1/Pod(related)",
    "v1/Service",
    "v1/ServiceAccount",
  ]);
  const yaml = await cli("demo", "--kubeconfig", kubeconfig, "--cluster", "cli", "-o", "yaml");
  assert.equal(yaml.status, 0, yaml.stderr);
  assert.match(yaml.stdout, /^apply_method: ssa\n/);
  const missing = await cli("demo", "--kubeconfig", kubeconfig, "--cluster", "cli", "--revision", "7");
  assert.deepEqual([missing.status, missing.stderr], [1, "Error: release: not found\n"]);
});

test("drift is compared unless --no-drift", async () => {
  const base = ["demo", "--kubeconfig", kubeconfig, "--cluster", "cli", "-o", "json"];
  const withDrift = JSON.parse((await cli(...base)).stdout);
  assert.deepEqual([withDrift.drift.checked, withDrift.drift.fields], [3, []], "materialized as the manifest says");
  const without = await cli(...base, "--no-drift");
  assert.equal(without.status, 0, without.stderr);
  assert.equal(JSON.parse(without.stdout).drift, undefined);
});

test("user errors are one line on stderr", async () => {
  const cases: [string[], RegExp, number][] = [
    [["Bad_Name", "--kubeconfig", kubeconfig], /^Error: releaseContent: Release name is invalid: Bad_Name\n$/, 2],
    [
      ["demo", "-o", "xml", "--kubeconfig", kubeconfig],
      /^Error: invalid argument "xml" for "-o, --output" flag: invalid format type\n$/,
      2,
    ],
    [
      ["demo", "--revision", "two", "--kubeconfig", kubeconfig],
      /^Error: invalid argument "two" for "--revision" flag: strconv.ParseInt: parsing "two": invalid syntax\n$/,
      2,
    ],
    [
      ["demo", "--revision", "2147483648", "--kubeconfig", kubeconfig],
      /^Error: invalid revision "2147483648": must be an integer no greater than 2147483647 \(0 or less: the latest\)/,
      2,
    ],
    [["demo"], /^Error: which cluster\? pass --cluster C/, 2],
    [["demo", "--context", "x"], /^Error: --context needs --kubeconfig FILE\n$/, 2],
    [[], /^Error: "helm status" requires 1 argument\n$/, 2],
  ];
  for (const [args, message, code] of cases) {
    const result = await cli(...args);
    assert.match(result.stderr, message, args.join(" "));
    assert.equal(result.status, code, args.join(" "));
    assert.doesNotMatch(result.stderr, /at .*\.ts:\d+/);
  }
});

test("a status whose reads are still queued at its deadline ends by it: 'not read in time', exit 0 (#14 item 1)", async () => {
  sim.cluster("cli").faults.set({ latencyMs: 3000 });
  try {
    for (const concurrency of ["1", "16"]) {
      const started = Date.now();
      const result = await cli(
        ...["demo", "--kubeconfig", kubeconfig, "--cluster", "cli", "--timeout", "1", "--concurrency", concurrency],
      );
      assert.equal(result.status, 0, result.stderr);
      assert.ok(Date.now() - started < 2500, `took ${Date.now() - started} ms`);
      assert.match(result.stdout, /==> MISSING\n[\s\S]*not read in time/);
    }
  } finally {
    sim.cluster("cli").faults.clear();
  }
});

test("--kubeconfig with a plain http:// server: the real kubectl proxy in front of the cluster (#13 item 4)", async (t) => {
  const kubectl = await kubectlPath();
  if (!kubectl) return t.skip("no kubectl");
  const proxy = spawn(kubectl, ["proxy", "--port=0", "--address=127.0.0.1", "--kubeconfig", kubeconfig], {
    env: { PATH: process.env.PATH, HOME: dir },
  });
  try {
    const port = await new Promise<string>((resolve, reject) => {
      let seen = "";
      const timer = setTimeout(() => reject(new Error(`kubectl proxy did not start: ${seen}`)), 20_000);
      proxy.stdout.on("data", (chunk) => {
        seen += chunk;
        const match = /Starting to serve on 127\.0\.0\.1:(\d+)/.exec(seen);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      proxy.on("exit", (code) => reject(new Error(`kubectl proxy exited ${code}: ${seen}`)));
    });
    const plain = join(dir, "proxy-kubeconfig");
    writeFileSync(
      plain,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: proxy\n  cluster:\n    server: http://127.0.0.1:${port}\ncontexts:\n- name: proxy\n  context:\n    cluster: proxy\n    user: proxy\nusers:\n- name: proxy\n  user: {}\ncurrent-context: proxy\n`,
      { mode: 0o600 },
    );
    const result = await cli("demo", "--kubeconfig", plain, "--cluster", "cli");
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(
      result.stdout.split("\n").filter((line) => line.startsWith("==> ")),
      ["==> v1/ServiceAccount", "==> v1/Service", "==> v1/Deployment", "==> v1/Pod(related)"],
    );
  } finally {
    proxy.kill();
  }
});
