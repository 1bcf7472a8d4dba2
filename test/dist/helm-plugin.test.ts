/**
 * `helm fleet` with the real helm 4.1 against the local stack: `npm start` (PORT=0, a temp data dir) serves the
 * API, `helm plugin install helm-plugin/` into a private HELM_DATA_HOME, and helm runs the plugin with Helm's
 * own flags (-n and --kube-context become HELM_NAMESPACE / HELM_KUBECONTEXT). The text answers are the API's
 * text routes byte for byte. Then CI's step: real helm installs a chart into a simulated EKS cluster named like
 * one of the API's, and `helm fleet push` reads helm's Secret with that kubeconfig and stores it through the API.
 * Requests are signed (the local API takes signed or unsigned ones).
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { buildPluginDir } from "../../bin/lib/bundle.ts";
import { startSimulatedEks } from "../../local/sim/index.ts";
import { runProgram } from "../support/cli.ts";
import { helmPath, kubeToolsEnv } from "../support/kube-tools.ts";

const root = new URL("../..", import.meta.url).pathname;
const hasJava = spawnSync("java", ["-version"]).status === 0;
const helm = await helmPath();
const skip = (!hasJava && "no java for DynamoDB Local") || (!helm && "no helm");
const home = mkdtempSync(join(tmpdir(), "helm-fleet-"));
const PATH = `${dirname(process.execPath)}:${process.env.PATH}`;
let stack: ChildProcess | undefined;
let url = "";

// Names only (no credentials): which EKS cluster each context means, as `aws eks update-kubeconfig --alias` writes.
const namesOnly = join(home, "contexts.kubeconfig");
writeFileSync(
  namesOnly,
  [
    "apiVersion: v1",
    "kind: Config",
    "current-context: eu",
    "contexts:",
    "- name: eu",
    "  context: {cluster: 'arn:aws:eks:eu-west-1:123456789012:cluster/demo-eu', user: me}",
    "- name: us",
    "  context: {cluster: 'arn:aws:eks:us-east-1:123456789012:cluster/demo-us', user: me}",
  ].join("\n"),
);

function helmEnv(kubeconfig: string): NodeJS.ProcessEnv {
  return {
    ...kubeToolsEnv(home, kubeconfig),
    PATH,
    HELM_STATUS_ENDPOINT: url,
    AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
    AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
    AWS_REGION: "us-east-1",
  };
}

/** Asynchronous (the simulated EKS of the push test answers from this process). */
const run = (command: string, args: string[], env: NodeJS.ProcessEnv) => runProgram(command, args, { env });

const fleet = (args: string[], kubeconfig = namesOnly) => run(helm!, ["fleet", ...args], helmEnv(kubeconfig));

before(async () => {
  if (skip) return;
  stack = spawn("npm", ["start", "--silent"], {
    cwd: root,
    env: {
      ...process.env,
      PATH: `${join(root, "node_modules/.bin")}:${process.env.PATH}`,
      PORT: "0",
      HELM_STATUS_DATA_DIR: join(home, "data"),
      CLUSTERS: "",
      CLUSTERS_FILE: "",
      AWS_ENDPOINT_URL_DYNAMODB: "",
      RELEASES_TABLE: "",
      AUDIT_INTERVAL: "3600",
    },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  stack.stdout!.on("data", (chunk) => (output += chunk));
  stack.stderr!.on("data", (chunk) => (output += chunk));
  const deadline = Date.now() + 120_000;
  while (!/API ready on (http:\/\/127\.0\.0\.1:\d+)/.test(output)) {
    if (Date.now() > deadline || stack.exitCode !== null) throw new Error(`npm start did not get ready:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  url = /API ready on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)![1];
  const install = await run(helm!, ["plugin", "install", join(root, "helm-plugin")], helmEnv(namesOnly));
  assert.equal(install.code, 0, install.stderr);
});

after(() => {
  if (stack?.pid && stack.exitCode === null) {
    try {
      process.kill(-stack.pid, "SIGINT");
    } catch {}
  }
  rmSync(home, { recursive: true, force: true });
});

/** AGE cells move between two reads a second apart; everything else must be the same bytes. */
const steadyAges = (text: string) => text.replace(/\b\d+(s|m|h|d)(\d+(s|m))?\b/g, "AGE");

test("helm fleet status/list/history print what the API's text routes print", { skip, timeout: 300_000 }, async () => {
  const plugins = await run(helm!, ["plugin", "list"], helmEnv(namesOnly));
  assert.match(plugins.stdout, /^fleet\s+0\.1\.0\s+cli\/v1/m);

  const status = await fleet(["status", "api", "-n", "shop"]);
  assert.equal(status.code, 0, status.stderr);
  const api = await (await fetch(`${url}/clusters/demo-eu/namespaces/shop/releases/api/status?output=table`)).text();
  assert.equal(steadyAges(status.stdout), steadyAges(api));
  assert.match(status.stdout, /^NAME: api\n/);

  const list = await fleet(["list", "-A", "--kube-context", "us"]);
  assert.equal(list.code, 0, list.stderr);
  assert.equal(list.stdout, await (await fetch(`${url}/clusters/demo-us/releases?output=table`)).text());

  const history = await fleet(["history", "web", "--namespace", "shop"]);
  assert.equal(
    history.stdout,
    await (await fetch(`${url}/clusters/demo-eu/namespaces/shop/releases/web/history?output=table`)).text(),
  );

  const json = await fleet(["status", "web", "-n", "shop", "-o", "json"]);
  assert.equal((JSON.parse(json.stdout) as { name: string; cluster: string }).cluster, "demo-eu");

  const drift = await fleet(["drift", "web", "-n", "shop"]);
  assert.match(drift.stdout, /^DRIFT: \d+ fields? changed outside Helm.*\n==> DRIFT\nKIND\s+NAME\s+FIELD/);
  assert.match(drift.stdout, /data\.LOG_LEVEL\s+warn -> debug/);

  const snapshots = await fleet(["snapshots", "api", "-n", "shop"]);
  assert.equal(snapshots.code, 0, snapshots.stderr);
  assert.match(snapshots.stdout, /^FIRST SEEN\s+LAST SEEN\s+SEEN\s+REVISION\s+HEALTH\s+CHANGES\s+ID\n/);

  const missing = await fleet(["status", "nope", "-n", "shop"]);
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /^Error: release: not found$/m);

  const help = await fleet(["--help"]);
  assert.match(help.stdout, /^usage: helm fleet COMMAND/);
});

test("helm fleet push: helm's own Secret, read with the pipeline's kubeconfig, stored through the API", {
  skip,
  timeout: 300_000,
}, async () => {
  const sim = await startSimulatedEks({ clusters: [{ name: "demo-eu", region: "eu-west-1" }] });
  try {
    const kubeconfig = join(home, "pipeline.kubeconfig");
    writeFileSync(kubeconfig, sim.cluster("demo-eu").kubeconfig(), { mode: 0o600 });
    const env = helmEnv(kubeconfig);
    const chart = join(home, "pushed");
    assert.equal((await run(helm!, ["create", chart], env)).code, 0);
    const installed = await run(helm!, ["install", "pushed", chart, "-n", "default"], env);
    assert.equal(installed.code, 0, installed.stderr);

    const push = await fleet(["push", "pushed", "-n", "default"], kubeconfig);
    assert.equal(push.code, 0, push.stderr);
    assert.match(push.stdout, /^cluster demo-eu: imported 1, unchanged 0, skipped 0, failed 0\n$/);
    const again = await fleet(["push", "pushed", "-n", "default"], kubeconfig);
    assert.match(again.stdout, /imported 0, unchanged 1/);

    // What the API now has is what helm itself says about the release, byte for byte.
    const history = await fleet(["history", "pushed", "-n", "default", "--cluster", "demo-eu"]);
    const helmHistory = await run(helm!, ["history", "pushed", "-n", "default"], env);
    assert.equal(history.stdout, helmHistory.stdout);
    assert.match(history.stdout, /Install complete/);

    const absent = await fleet(["push", "never-installed", "-n", "default"], kubeconfig);
    assert.equal(absent.code, 2);
    assert.match(absent.stderr, /release: not found \(no Helm secrets for "never-installed" in default\)/);
  } finally {
    await sim.stop();
  }
});

test("the plugin tarball (npm run build:plugin, helm plugin package) installs and answers the same", {
  skip,
  timeout: 300_000,
}, async () => {
  const folder = await buildPluginDir(join(home, "plugin-build", "helm-fleet"));
  const env = { ...helmEnv(namesOnly), HELM_DATA_HOME: join(home, "tarball-data") };
  const packaged = await run(helm!, ["plugin", "package", folder, "--sign=false", "-d", home], env);
  assert.equal(packaged.code, 0, packaged.stderr);
  // Unsigned here; a published tarball comes with its .prov (helm plugin package --key …) and installs verified.
  const installed = await run(helm!, ["plugin", "install", join(home, "fleet-0.1.0.tgz"), "--verify=false"], env);
  assert.equal(installed.code, 0, installed.stderr);
  const fromTarball = await run(helm!, ["fleet", "history", "web", "-n", "shop"], env);
  assert.equal(fromTarball.code, 0, fromTarball.stderr);
  assert.equal(fromTarball.stdout, (await fleet(["history", "web", "-n", "shop"])).stdout);
});
