/**
 * The release sync end to end with the real helm 4.1: helm installs, upgrades, rolls back, prunes and
 * uninstalls on the simulated EKS; `cli sync` (through the registry and EKS auth) brings DynamoDB Local up to
 * date with no import; `cli history` / `list` / `status` then say what helm says.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import {
  decodeHelmStorageObject,
  encodeHelmConfigMap,
  encodeHelmSecret,
  type KubeObject,
} from "../../shared/release/helm-codec.ts";
import { runCli } from "../support/cli.ts";
import { type HelmStack, startHelmStack } from "../support/helm-stack.ts";
import { helmPath, kubeToolsEnv } from "../support/kube-tools.ts";

const exec = promisify(execFile);
const helm = await helmPath();
const CLUSTER = "helm-sync";
const TABLE = "helm-sync";

let stack: HelmStack | undefined;
let home: string;
let chart: string;
let kubeconfig: string;
let cliEnv: NodeJS.ProcessEnv;

async function helmOk(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  try {
    const { stdout } = await exec(helm!, args, { env: { ...kubeToolsEnv(home, kubeconfig), ...env }, timeout: 60_000 });
    return stdout;
  } catch (error) {
    assert.fail(`helm ${args.join(" ")}: ${(error as { stderr?: string }).stderr}`);
  }
}

const cli = (args: string[]) => runCli(args, cliEnv);

async function syncOk(): Promise<Record<string, unknown>> {
  const run = await cli(["sync", "--cluster", CLUSTER, "-o", "json"]);
  assert.equal(run.code, 0, `sync: ${run.stdout}${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** `helm history` and `cli history` byte for byte (the fidelity suite's rule for history). */
async function sameHistory(release: string, namespace = "default", env: NodeJS.ProcessEnv = {}): Promise<void> {
  const ours = await cli(["history", release, "-n", namespace, "--cluster", CLUSTER]);
  assert.equal(ours.code, 0, ours.stderr);
  assert.equal(ours.stdout, await helmOk(["history", release, "-n", namespace], env));
}

/** `helm list -n NS` (with that namespace's driver) and `cli list -n NS` byte for byte. */
async function sameList(namespace: string, env: NodeJS.ProcessEnv = {}): Promise<void> {
  const ours = await cli(["list", "--cluster", CLUSTER, "-n", namespace]);
  assert.equal(ours.stdout, await helmOk(["list", "-n", namespace], env));
}

const CONFIGMAPS = { HELM_DRIVER: "configmap" };

before(async () => {
  if (!helm) return;
  stack = await startHelmStack({ helm, cluster: CLUSTER, table: TABLE, prefix: "helm-sync-" });
  ({ home, kubeconfig, chart, cliEnv } = stack);
});

after(() => stack?.stop());

describe("sync with the real helm", { skip: !helm && "no helm", concurrency: false }, () => {
  test("helm install, then sync: history and list as helm prints them, with no import", async () => {
    await helmOk(["install", "demo", chart]);
    await helmOk(["install", "cm", chart, "-n", "legacy", "--create-namespace"], CONFIGMAPS);
    const summary = await syncOk();
    assert.equal(summary.imported, 2);
    await sameHistory("demo");
    await sameHistory("cm", "legacy", CONFIGMAPS);
    await sameList("default");
    await sameList("legacy", CONFIGMAPS);
  });

  test("helm upgrade and rollback: the next sync reads only what changed", async () => {
    await helmOk(["upgrade", "demo", chart, "--set", "replicaCount=2"]);
    const upgraded = await syncOk();
    assert.deepEqual([upgraded.fetched, upgraded.imported, upgraded.updated], [1, 1, 1]);
    await sameHistory("demo");
    await helmOk(["rollback", "demo", "1"]);
    const rolledBack = await syncOk();
    assert.equal(rolledBack.imported, 1);
    await sameHistory("demo");
    const status = await cli(["status", "demo", "--cluster", CLUSTER]);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /^REVISION: 3$/m);
    const unchanged = await syncOk();
    assert.deepEqual([unchanged.fetched, unchanged.imported, unchanged.updated, unchanged.removed], [0, 0, 0, 0]);
  });

  test("--history-max pruning and helm uninstall: removed from the store, as helm forgets them", async () => {
    await helmOk(["upgrade", "demo", chart, "--history-max", "2"]);
    const pruned = await syncOk();
    assert.ok((pruned.removed as number) >= 1, JSON.stringify(pruned));
    await sameHistory("demo");
    await helmOk(["uninstall", "demo"]);
    const uninstalled = await syncOk();
    assert.equal(uninstalled.removed, 2);
    for (const command of [
      ["status", "demo"],
      ["history", "demo"],
    ]) {
      const run = await cli([...command, "--cluster", CLUSTER]);
      assert.equal(run.code, 1);
      assert.equal(run.stderr, "Error: release: not found\n");
    }
    await sameList("default");
  });

  test("uninstall --keep-history: the release stays, uninstalled, as helm keeps it", async () => {
    await helmOk(["uninstall", "cm", "-n", "legacy", "--keep-history"], CONFIGMAPS);
    const summary = await syncOk();
    assert.equal(summary.updated, 1);
    await sameHistory("cm", "legacy", CONFIGMAPS);
  });

  test("a tenant's forged Secret and ConfigMap in team-a: shop/api stays helm's, no kube-system release appears", async () => {
    await helmOk(["install", "api", chart, "-n", "shop", "--create-namespace"]);
    await helmOk(["upgrade", "api", chart, "-n", "shop", "--set", "replicaCount=2"]);
    const sim = stack!.sim.cluster(CLUSTER);
    // What a tenant with write access to Secrets (or only ConfigMaps) in team-a can write: helm's own revision 2
    // of shop/api, re-encoded with Helm's exact encoding and another manifest and description.
    const real = decodeHelmStorageObject(sim.get("v1", "Secret", "sh.helm.release.v1.api.v2", "shop") as KubeObject);
    const lie = { ...real, manifest: "---\nkind: ConfigMap\n", info: { ...real.info!, description: "all good" } };
    const inTeamA = <T extends { metadata: object }>(object: T) => ({
      ...object,
      metadata: { ...object.metadata, namespace: "team-a" },
    });
    sim.apply([
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "team-a" } },
      inTeamA(encodeHelmSecret(lie)),
      inTeamA(encodeHelmConfigMap({ ...lie, version: 3 })),
      inTeamA(encodeHelmSecret({ ...lie, name: "coredns", namespace: "kube-system", version: 1 })),
    ]);
    const scoped = await cli(["sync", "--cluster", CLUSTER, "-n", "team-a", "-o", "json"]);
    assert.equal(JSON.parse(scoped.stdout).failed, 3, scoped.stdout);
    const fullRun = await cli(["sync", "--cluster", CLUSTER, "-o", "json"]);
    assert.equal(fullRun.code, 1, "objects failed: exit 1");
    const full = JSON.parse(fullRun.stdout);
    assert.deepEqual([full.failed, full.complete], [3, true]);
    assert.ok(!JSON.stringify(full).includes("all good"), "no payload quoted");
    await sameHistory("api", "shop");
    const list = await cli(["list", "--cluster", CLUSTER, "-A", "-o", "json"]);
    const names = (JSON.parse(list.stdout) as { name: string; namespace: string }[]).map(
      (r) => `${r.namespace}/${r.name}`,
    );
    assert.ok(
      names.includes("shop/api") && !names.some((n) => n.startsWith("kube-system/") || n.startsWith("team-a/")),
    );
  });
});
