import assert from "node:assert/strict";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { after, before, test } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { closeKubeConnections, requesterFor } from "../../shared/kube/http.ts";

/** The request path on the dispatcher @kubernetes/client-node builds from a KubeConfig (TLS verified). */

let sim: SimulatedEks;
let connects = 0;
const onConnect = () => {
  connects++;
};

before(async () => {
  sim = await startSimulatedEks({ clusters: [{ name: "c1" }], seed: 7 });
  sim
    .cluster("c1")
    .apply([{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "ns" }, data: {} }]);
  subscribe("undici:client:connected", onConnect);
});

after(async () => {
  unsubscribe("undici:client:connected", onConnect);
  await closeKubeConnections();
  await sim.stop();
});

function kubeConfigOf(server?: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(sim.cluster("c1").kubeconfig());
  if (server) kubeConfig.clusters = kubeConfig.clusters.map((cluster) => ({ ...cluster, server }));
  return kubeConfig;
}

const JSON_ACCEPT = "application/json";

test("GETs reuse one pool per KubeConfig; a new KubeConfig replaces it", async () => {
  const kubeConfig = kubeConfigOf();
  const requester = await requesterFor("c1", kubeConfig);
  const first = await requester.get("/api/v1/namespaces/ns/configmaps/cm", JSON_ACCEPT, AbortSignal.timeout(5000));
  assert.equal(first.status, 200);
  assert.equal((JSON.parse(first.body) as { metadata: { name: string } }).metadata.name, "cm");
  assert.match(first.headers["content-type"] ?? "", /application\/json/);

  // undici may open a second connection while the first one finishes its answer: warm up first.
  for (let i = 0; i < 3; i++) await requester.get("/version", JSON_ACCEPT, AbortSignal.timeout(5000));
  const before = connects;
  const again = await requesterFor("c1", kubeConfig);
  for (let i = 0; i < 5; i++) {
    const reply = await again.get("/api/v1/namespaces/ns/configmaps/cm", JSON_ACCEPT, AbortSignal.timeout(5000));
    assert.equal(reply.status, 200);
  }
  assert.equal(connects, before, "the warm pool is reused");

  const replaced = await requesterFor("c1", kubeConfigOf());
  const reply = await replaced.get("/api/v1/namespaces/ns/configmaps/missing", JSON_ACCEPT, AbortSignal.timeout(5000));
  assert.equal(reply.status, 404);
  assert.equal(connects, before + 1, "a new KubeConfig gets its own pool");
});

test("a server URL with a path prefix keeps the prefix", async () => {
  const server = sim.cluster("c1").server.replace(/\/+$/, "");
  const requester = await requesterFor("c1", kubeConfigOf(`${server}/prefix/`));
  const reply = await requester.get("/api/v1/namespaces/ns/configmaps/cm", JSON_ACCEPT, AbortSignal.timeout(5000));
  // The simulator serves no /prefix: the request went to the prefixed path, not to the bare one.
  assert.equal(reply.status, 404);
  assert.equal(sim.cluster("c1").stats().log.at(-1)?.path, "/prefix/api/v1/namespaces/ns/configmaps/cm");
});

test("an aborted request rejects with the signal's reason (what the session reads a timeout from)", async () => {
  const requester = await requesterFor("c1", kubeConfigOf());
  sim.cluster("c1").faults.set({ latencyMs: 2000 });
  try {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new DOMException("no answer", "TimeoutError")), 50);
    await assert.rejects(
      requester.get("/api/v1/namespaces/ns/configmaps/cm", JSON_ACCEPT, controller.signal),
      (error: Error) => error.name === "TimeoutError",
    );
  } finally {
    sim.cluster("c1").faults.clear();
  }
});

test("a network error keeps its code as the cause", async () => {
  // A port nothing listens on: the simulator's own port after a server that was stopped.
  const stopped = await startSimulatedEks({ clusters: [{ name: "c1" }] });
  const server = stopped.cluster("c1").server;
  await stopped.stop();
  const requester = await requesterFor("gone", kubeConfigOf(server));
  await assert.rejects(
    requester.get("/version", JSON_ACCEPT, AbortSignal.timeout(5000)),
    (error: Error & { cause?: { code?: string } }) => error.cause?.code === "ECONNREFUSED",
  );
});

test("TLS is verified: a server whose certificate the kubeconfig's CA did not sign is refused", async () => {
  const other = await startSimulatedEks({ clusters: [{ name: "c1" }] });
  try {
    // This kubeconfig trusts the first simulator's CA only.
    const requester = await requesterFor("other", kubeConfigOf(other.cluster("c1").server));
    await assert.rejects(requester.get("/version", JSON_ACCEPT, AbortSignal.timeout(5000)), (error: Error) => {
      const code = (error.cause as { code?: string } | undefined)?.code ?? "";
      return /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|SIGNATURE/.test(code);
    });
  } finally {
    await closeKubeConnections();
    await other.stop();
  }
});
