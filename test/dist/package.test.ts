/**
 * The npm tarball as a user gets it: `npm pack` (its prepack builds the bundle), `npm install -g --prefix TMP
 * TARBALL --offline` (the tarball has no runtime dependencies, so nothing is fetched), then the installed
 * `helm-status` run from a folder outside the checkout: --help, completion, and list/status against DynamoDB
 * Local and the simulated EKS (through EKS: the registry, DescribeCluster, a token, the live GETs), on Node 24 and
 * on npm's node@20 and node@22 (test/support/node-versions.ts). A checkout's sources started by an older Node are
 * re-run on Node 24.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { type DemoStack, startDemoStack } from "../../local/demo/stack.ts";
import { bashCompletion, runProgram } from "../support/cli.ts";
import { helmPath, kubeToolsEnv } from "../support/kube-tools.ts";
import { nodeBinary } from "../support/node-versions.ts";

const root = new URL("../..", import.meta.url).pathname;
const helm = await helmPath();
const hasJava = spawnSync("java", ["-version"]).status === 0;
const work = mkdtempSync(join(tmpdir(), "helm-status-pack-"));
const prefix = join(work, "prefix");
const installed = join(prefix, "bin", "helm-status");
// The Node 24 of the checkout first on PATH (npm itself may be the system's older one).
const PATH = `${dirname(process.execPath)}:${process.env.PATH}`;
let tarballFiles: string[] = [];
let stack: DemoStack | undefined;

before(async () => {
  const packed = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--pack-destination", work], {
      cwd: root,
      env: { ...process.env, PATH },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 180_000,
    }),
  ) as { filename: string; size: number; files: { path: string }[] }[];
  tarballFiles = packed[0].files.map((file) => file.path);
  assert.ok(packed[0].size < 2_000_000, `the tarball is ${packed[0].size} bytes`);
  // Offline: a dependency to fetch would fail the install.
  execFileSync(
    "npm",
    ["install", "-g", "--prefix", prefix, "--offline", "--no-audit", "--no-fund", join(work, packed[0].filename)],
    { cwd: work, env: { ...process.env, PATH }, stdio: ["ignore", "pipe", "pipe"], timeout: 180_000 },
  );
});

after(async () => {
  await stack?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** Asynchronous: the simulated EKS answers from this very process. */
async function helmStatus(args: string[], env: NodeJS.ProcessEnv = {}, path = PATH) {
  const { code, stdout, stderr } = await runProgram(installed, args, {
    cwd: work,
    env: { PATH: path, HOME: work, ...env },
  });
  return { status: code, stdout, stderr };
}

test("the tarball holds the launcher, the bundle, the Helm plugin and docs; no sources, no simulator", () => {
  assert.ok(tarballFiles.includes("bin/helm-status.js"), tarballFiles.join("\n"));
  assert.ok(tarballFiles.includes("dist/cli/cli.mjs"));
  assert.ok(tarballFiles.includes("dist/cli/commands/status.mjs"));
  assert.ok(tarballFiles.includes("docs/cli.md"));
  assert.ok(tarballFiles.includes("helm-plugin/plugin.yaml") && tarballFiles.includes("helm-plugin/fleet.sh"));
  const unexpected = tarballFiles.filter(
    (file) => file.endsWith(".ts") || file.startsWith("local/") || file.includes("node_modules/"),
  );
  assert.deepEqual(unexpected, []);
});

test("the installed command: --help, a bad command, completion", async () => {
  const help = await helmStatus(["--help"]);
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /^usage: helm-status COMMAND/);
  const status = await helmStatus(["status", "--help"]);
  assert.match(status.stdout, /^usage: helm-status status RELEASE/);
  const bad = await helmStatus(["frobnicate"]);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^Error: unknown command "frobnicate"/);

  const script = (await helmStatus(["completion", "bash"])).stdout;
  const complete = (words: string[]) => bashCompletion(script, words);
  assert.equal(complete(["helm-status", "sta"]), "status");
  assert.equal(complete(["helm-status", "status", "--no-"]), "--no-drift");
  assert.equal(complete(["helm-status", "get", ""]), "manifest");
  assert.equal(complete(["helm-status", "snapshots", "d"]), "diff");
});

test("the Helm plugin installs from the installed package's folder", { skip: !helm && "no helm" }, async () => {
  const env = { ...kubeToolsEnv(work, join(work, "none.kubeconfig")), PATH };
  const folder = join(prefix, "lib", "node_modules", "helm-status-lambda", "helm-plugin");
  const run = (args: string[]) => runProgram(helm!, args, { env });
  const install = await run(["plugin", "install", folder]);
  assert.equal(install.code, 0, install.stderr);
  const help = await run(["fleet", "--help"]);
  assert.match(help.stdout, /^usage: helm fleet COMMAND/);
  const noApi = await run(["fleet", "list", "--cluster", "demo-eu"]);
  assert.notEqual(noApi.code, 0);
  assert.match(noApi.stderr, /^Error: which API\? pass --endpoint URL, set HELM_STATUS_ENDPOINT/);
});

/** PATH with Node MAJOR first: the installed command's `#!/usr/bin/env node` then starts on it. */
const pathWith = async (major: 20 | 22) => `${dirname(await nodeBinary(major))}:${PATH}`;

test("the packed command runs on Node 20 and 22 itself (no re-run on a Node 24)", async () => {
  for (const major of [20, 22] as const) {
    const path = await pathWith(major);
    const version = await runProgram("node", ["-p", "process.versions.node"], { env: { PATH: path } });
    assert.match(version.stdout, new RegExp(`^${major}\\.`), `node@${major} first on PATH`);
    const help = await helmStatus(["status", "--help"], {}, path);
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /^usage: helm-status status RELEASE/);
    const bad = await helmStatus(["frobnicate"], { HELM_STATUS_NODE: "/nonexistent" }, path);
    assert.equal(bad.status, 2, "the exit code of the CLI itself, not of a re-run");
    assert.match(bad.stderr, /^Error: unknown command "frobnicate"/);
  }
});

test("from a checkout: linked elsewhere (as npm install -g . links it), and started by an older Node", async () => {
  const linked = join(work, "linked-bin");
  mkdirSync(linked);
  symlinkSync(join(root, "bin", "helm-status.js"), join(linked, "helm-status"));
  const run = (command: string, args: string[]) => runProgram(command, args, { cwd: work, env: { PATH, HOME: work } });
  const help = await run(join(linked, "helm-status"), ["status", "--help"]);
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /^usage: helm-status status RELEASE/);
  // The sources need Node 24 (type stripping): an older Node re-runs them, on the checkout's node@24
  // devDependency, or on HELM_STATUS_NODE.
  const older = await run(await nodeBinary(22), [join(linked, "helm-status"), "frobnicate"]);
  assert.equal(older.code, 2, older.stderr);
  assert.match(older.stderr, /^Error: unknown command "frobnicate"/);
  const chosen = await runProgram(await nodeBinary(20), [join(linked, "helm-status"), "frobnicate"], {
    cwd: work,
    env: { PATH, HOME: work, HELM_STATUS_NODE: "/nonexistent/node" },
  });
  assert.equal(chosen.code, 1);
  assert.match(chosen.stderr, /^Error: cannot run \/nonexistent\/node: /);
});

test("without a configured table the installed command says what to set", async () => {
  const result = await helmStatus(["list"]);
  assert.equal(result.status, 2);
  assert.match(result.stderr, /^Error: no releases table configured: set AWS credentials/);
});

test("list and status against DynamoDB Local and the simulated EKS", { skip: !hasJava && "no java" }, async () => {
  stack = await startDemoStack({ dataDir: join(work, "dynamodb"), table: "packed" });
  const storeEnv = stack.env;

  const list = await helmStatus(["list", "--cluster", "demo-eu", "-A"], storeEnv);
  assert.equal(list.status, 0, list.stderr);
  assert.match(list.stdout, /^NAME\s+NAMESPACE\s+REVISION/);
  assert.match(list.stdout, /^api\s+shop\s+2\s/m);

  const status = await helmStatus(["status", "api", "-n", "shop", "--cluster", "demo-eu"], storeEnv);
  assert.equal(status.status, 0, status.stderr);
  assert.match(status.stdout, /^NAME: api\nLAST DEPLOYED: .*\nNAMESPACE: shop\nSTATUS: deployed\nREVISION: 2\n/);
  assert.match(status.stdout, /CrashLoopBackOff/);
  assert.match(status.stdout, /==> MISSING/);

  // The same answers from the same package on Node 20 and 22 (the store through the AWS SDK, the cluster through
  // EKS auth and undici): only the AGE cells may differ, a few seconds later.
  const ages = (text: string) => text.replace(/\b\d+(s|m\d*s?)\b/g, "AGE");
  for (const major of [20, 22] as const) {
    const path = await pathWith(major);
    const olderList = await helmStatus(["list", "--cluster", "demo-eu", "-A"], storeEnv, path);
    assert.equal(olderList.status, 0, `node ${major}: ${olderList.stderr}`);
    assert.equal(olderList.stdout, list.stdout, `list on node ${major}`);
    const olderStatus = await helmStatus(["status", "api", "-n", "shop", "--cluster", "demo-eu"], storeEnv, path);
    assert.equal(olderStatus.status, 0, `node ${major}: ${olderStatus.stderr}`);
    assert.equal(ages(olderStatus.stdout), ages(status.stdout), `status on node ${major}`);
  }
});
