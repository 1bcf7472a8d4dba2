import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { AppsV1Api, CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { startSimulatedEksInWorker } from "../../local/sim/worker.ts";

const manifest = await readFile(new URL("./fixtures/helm-create-demo.yaml", import.meta.url), "utf8");

test("simulated EKS in a worker thread: materialize, read through a kubeconfig with client-node, stats, stop", {
  timeout: 60_000,
}, async () => {
  const sim = await startSimulatedEksInWorker({ clusters: [{ name: "w1", region: "eu-west-1" }], seed: 1 });
  try {
    assert.deepEqual(
      sim.registryEntries().map((e) => [e.name, e.region]),
      [["w1", "eu-west-1"]],
    );
    assert.match(sim.eksEndpoint, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.throws(() => sim.cluster("nope"), /no simulated cluster named "nope" \(have: w1\)/);
    const cluster = sim.cluster("w1");
    assert.match(cluster.server, /^https:\/\/127\.0\.0\.1:\d+$/);

    const made = await cluster.materialize(manifest, { namespace: "web" });
    assert.ok(made >= 5, `ServiceAccount, Service, Deployment, its ReplicaSet and pods (made ${made})`);
    await assert.rejects(cluster.materialize("kind: [unclosed"), (error: Error) => {
      assert.ok(error.message.length > 0, "the worker's error message crosses the thread boundary");
      return true;
    });

    // The real client, TLS verified against the kubeconfig's CA, the token checked by the worker's API server.
    const kubeconfig = new KubeConfig();
    kubeconfig.loadFromString(await cluster.kubeconfig({ namespace: "web" }));
    assert.equal(kubeconfig.getCurrentCluster()?.skipTLSVerify ?? false, false);
    await cluster.resetStats();
    const deployment = await kubeconfig.makeApiClient(AppsV1Api).readNamespacedDeployment({
      name: "demo",
      namespace: "web",
    });
    assert.equal(deployment.metadata?.name, "demo");
    assert.equal(deployment.status?.readyReplicas, deployment.spec?.replicas);
    const pods = await kubeconfig.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: "web" });
    assert.ok(
      pods.items.some((pod) => pod.metadata?.name?.startsWith("demo-")),
      pods.items.map((p) => p.metadata?.name).join(),
    );

    const stats = await cluster.stats();
    assert.equal(stats.total, 2);
    assert.deepEqual(
      stats.log.map((entry) => [entry.method, entry.path, entry.status]),
      [
        ["GET", "/apis/apps/v1/namespaces/web/deployments/demo", 200],
        ["GET", "/api/v1/namespaces/web/pods", 200],
      ],
    );
    assert.match(stats.log[0].user, /:user\/sim-admin$/);

    await cluster.faults.set({ errorRate: 1, errorStatus: 503 });
    await assert.rejects(kubeconfig.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: "web" }));
    await cluster.faults.clear();
    assert.equal((await kubeconfig.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: "web" })).kind, "PodList");

    assert.ok((await sim.memoryUsage()).heapUsed > 0);
    assert.ok((await sim.cpuUsage()).user > 0);
  } finally {
    await sim.stop();
  }
  await sim.stop(); // a second stop is a no-op
  await assert.rejects(sim.cluster("w1").stats(), /the simulator worker exited/);
});

test("a simulator that cannot start in the worker rejects with the reason", { timeout: 30_000 }, async () => {
  await assert.rejects(
    startSimulatedEksInWorker({ clusters: [{ name: "bad name!" }] }),
    /the simulator worker did not start: cluster name "bad name!" is not a valid EKS cluster name/,
  );
});
