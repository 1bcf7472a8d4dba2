/**
 * The KubeReader against the simulated EKS: the deadline with queued reads
 * (issue #14 item 1), the per-cluster limit shared by concurrent statuses, the
 * 429 back-off, built-in kinds without discovery and the "not served" fallback,
 * a certificate that does not match the CA.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import type { ClusterConnector } from "../../shared/clusters/connector.ts";
import { ClusterCertificateError } from "../../shared/clusters/errors.ts";
import { accessFromKubeConfig } from "../../shared/clusters/kubeconfig-access.ts";
import { FairLimiter } from "../../shared/kube/limiter.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { parseManifest } from "../../shared/manifest/manifest.ts";
import { simConnector } from "../status/sim-connector.ts";

const CLUSTER = "reader";
let sim: SimulatedEks;
const cluster = () => sim.cluster(CLUSTER);

const configMaps = (count: number, namespace: string) => {
  let manifest = "";
  for (let i = 0; i < count; i++) {
    manifest += `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${i}\n  namespace: ${namespace}\ndata:\n  a: b\n`;
  }
  return manifest;
};

before(async () => {
  sim = await startSimulatedEks({ clusters: [{ name: CLUSTER }], seed: 3 });
  cluster().apply(configMaps(40, "queued"));
  cluster().apply(configMaps(10, "shared"));
});

after(async () => {
  await sim.stop();
});

const objectsOf = (manifest: string) => parseManifest(manifest).objects;

describe("the deadline ends every read, queued or in flight (#14 item 1)", () => {
  for (const concurrency of [1, 16]) {
    test(`40 reads at concurrency ${concurrency}, a cluster slower than the budget: settles at the deadline`, async () => {
      const kube = createKubeReader({ connector: simConnector(sim), random: () => 0 });
      cluster().faults.set({ latencyMs: 3000 });
      try {
        const started = Date.now();
        const result = await kube.read({
          cluster: CLUSTER,
          namespace: "queued",
          objects: objectsOf(configMaps(40, "queued")),
          deadline: started + 400,
          concurrency,
        });
        const took = Date.now() - started;
        assert.ok(took < 1500, `settled after ${took} ms`);
        assert.equal(result.resources.length, 40);
        assert.deepEqual(new Set(result.resources.map((resource) => resource.outcome)), new Set(["not-read-in-time"]));
        assert.ok(result.counters.maxInFlight <= concurrency);
        assert.equal(kube.stats(CLUSTER).inFlight, 0, "every slot was given back");
        assert.equal(kube.stats(CLUSTER).queued, 0, "nothing left waiting");
      } finally {
        cluster().faults.clear();
        await kube.close();
      }
    });
  }

  test("the per-cluster queue: a waiter whose deadline passes leaves it at once", async () => {
    const limiter = new FairLimiter(1);
    const holder = new AbortController();
    assert.equal(await limiter.acquire("a", holder.signal), true);
    const waiting = new AbortController();
    const queued = limiter.acquire("b", waiting.signal);
    waiting.abort();
    assert.equal(await queued, false);
    assert.equal(limiter.queued, 0);
    limiter.release();
    assert.equal(limiter.inFlight, 0);
  });

  test("slots go round-robin between owners, not first come first served", async () => {
    const limiter = new FairLimiter(1);
    const signal = new AbortController().signal;
    await limiter.acquire("holder", signal);
    const order: string[] = [];
    const waits = [
      ...["a1", "a2", "a3"].map((name) => limiter.acquire("a", signal).then(() => order.push(name))),
      ...["b1", "b2"].map((name) => limiter.acquire("b", signal).then(() => order.push(name))),
    ];
    for (let i = 0; i < 6; i++) {
      limiter.release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(waits);
    assert.deepEqual(order, ["a1", "b1", "a2", "b2", "a3"]);
  });
});

describe("one per-cluster limit for every status of the process", () => {
  test("eight concurrent statuses never put more than the limit in flight on the cluster", async () => {
    const kube = createKubeReader({ connector: simConnector(sim), limits: { perCluster: 6 } });
    cluster().faults.set({ latencyMs: 20 });
    cluster().resetStats();
    try {
      const objects = objectsOf(configMaps(10, "shared"));
      const results = await Promise.all(
        Array.from({ length: 8 }, () => kube.read({ cluster: CLUSTER, namespace: "shared", objects })),
      );
      for (const result of results) {
        assert.deepEqual(new Set(result.resources.map((resource) => resource.outcome)), new Set(["found"]));
      }
      assert.ok(kube.stats(CLUSTER).maxInFlight <= 6, `engine saw ${kube.stats(CLUSTER).maxInFlight}`);
      // The simulator counts until its response's `finish` event, which can trail the client by one.
      assert.ok(cluster().stats().maxInFlight <= 7, `simulator saw ${cluster().stats().maxInFlight}`);
      assert.ok(kube.stats(CLUSTER).socketsOpened <= 6, `sockets ${kube.stats(CLUSTER).socketsOpened}`);
    } finally {
      cluster().faults.clear();
      await kube.close();
    }
  });

  test("a 429 storm lowers the limit (AIMD) and the reads still complete", async () => {
    const kube = createKubeReader({ connector: simConnector(sim), limits: { perCluster: 32 }, random: () => 0 });
    let served = 0;
    cluster().faults.set({ errorRate: 1, errorStatus: 429, retryAfterSeconds: 0, match: () => ++served % 3 !== 0 });
    try {
      const result = await kube.read({
        cluster: CLUSTER,
        namespace: "shared",
        objects: objectsOf(configMaps(10, "shared")),
        deadline: Date.now() + 20_000,
      });
      assert.ok(kube.stats(CLUSTER).decreases >= 1, "the limit went down");
      assert.ok(kube.stats(CLUSTER).limit < 32, `limit ${kube.stats(CLUSTER).limit}`);
      assert.ok(result.counters.retries > 0);
      const outcomes = result.resources.map((resource) => resource.outcome);
      assert.ok(
        outcomes.every((outcome) => outcome === "found" || outcome === "error"),
        outcomes.join(),
      );
    } finally {
      cluster().faults.clear();
      await kube.close();
    }
  });
});

describe("built-in kinds need no discovery", () => {
  test("a cold reader reads built-ins at once; a kind the server does not serve falls back to discovery, then 'unknown kind'", async () => {
    const kube = createKubeReader({ connector: simConnector(sim) });
    cluster().resetStats();
    try {
      const builtins = await kube.read({
        cluster: CLUSTER,
        namespace: "shared",
        objects: objectsOf(configMaps(3, "shared")),
      });
      assert.equal(builtins.counters.requests, 3);
      assert.deepEqual(
        cluster()
          .stats()
          .log.map((entry) => entry.path)
          .filter((path) => path === "/api" || path === "/apis"),
        [],
      );
      // node.k8s.io/v1 RuntimeClass is in the static table, but this server does not serve it.
      const runtimeClass =
        "---\napiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: gvisor\nhandler: runsc\n";
      const result = await kube.read({ cluster: CLUSTER, namespace: "shared", objects: objectsOf(runtimeClass) });
      assert.equal(result.resources[0].outcome, "unknown-kind");
      assert.equal(result.resources[0].message, 'no matches for kind "RuntimeClass" in version "node.k8s.io/v1"');
      assert.equal(kube.stats(CLUSTER).discovery, "aggregated", "discovery was asked");
    } finally {
      await kube.close();
    }
  });
});

describe("the cluster's certificate", () => {
  test("a CA that did not sign the server's certificate: 'does not match its CA', not 'unreachable'", async () => {
    const other = await startSimulatedEks({ clusters: [{ name: CLUSTER }] });
    // This kubeconfig trusts the first simulator's CA and points at the second.
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(cluster().kubeconfig());
    kubeConfig.clusters = kubeConfig.clusters.map((entry) => ({ ...entry, server: other.cluster(CLUSTER).server }));
    const connector: ClusterConnector = {
      list: () => [],
      access: () => accessFromKubeConfig(kubeConfig),
      invalidate: () => {},
    };
    const kube = createKubeReader({ connector });
    try {
      await assert.rejects(
        kube.read({ cluster: CLUSTER, namespace: "shared", objects: objectsOf(configMaps(10, "shared")) }),
        (error: Error) => {
          assert.ok(error instanceof ClusterCertificateError, String(error));
          assert.match(
            error.message,
            /^kubernetes cluster "reader": the cluster's certificate does not match its CA \(/,
          );
          assert.doesNotMatch(error.message, /unreachable|use-system-ca/);
          return true;
        },
      );
      assert.ok(other.cluster(CLUSTER).stats().total === 0, "no request got through");
    } finally {
      await kube.close();
      await other.stop();
    }
  });
});
