import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import { makeServerCertificates } from "../../local/sim/certs.ts";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { accessFromKubeConfig } from "../../shared/clusters/kubeconfig-access.ts";
import { ConnectionPools } from "../../shared/kube/http.ts";

/** The request path: one bounded keep-alive pool per cluster, TLS verified with the kubeconfig's CA. */

let sim: SimulatedEks;
const pools = new ConnectionPools();
const requesterFor = async (cluster: string, kubeConfig: KubeConfig) =>
  pools.requester(cluster, await accessFromKubeConfig(kubeConfig));

before(async () => {
  sim = await startSimulatedEks({ clusters: [{ name: "c1" }], seed: 7 });
  sim
    .cluster("c1")
    .apply([{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "ns" }, data: {} }]);
});

after(async () => {
  await pools.close();
  await sim.stop();
});

function kubeConfigOf(server?: string, token?: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(sim.cluster("c1").kubeconfig());
  if (server) kubeConfig.clusters = kubeConfig.clusters.map((cluster) => ({ ...cluster, server }));
  if (token) kubeConfig.users = kubeConfig.users.map((user) => ({ ...user, token }));
  return kubeConfig;
}

const JSON_ACCEPT = "application/json";

test("GETs reuse the cluster's pool; a rotated token keeps it (no reconnect)", async () => {
  const kubeConfig = kubeConfigOf();
  const requester = await requesterFor("c1", kubeConfig);
  const first = await requester.get("/api/v1/namespaces/ns/configmaps/cm", JSON_ACCEPT, AbortSignal.timeout(5000));
  assert.equal(first.status, 200);
  assert.equal((JSON.parse(first.body) as { metadata: { name: string } }).metadata.name, "cm");
  assert.match(first.headers["content-type"] ?? "", /application\/json/);

  // undici may open a second connection while the first one finishes its answer: warm up first.
  for (let i = 0; i < 3; i++) await requester.get("/version", JSON_ACCEPT, AbortSignal.timeout(5000));
  const before = pools.opened("c1");
  assert.ok(before >= 1 && before <= 2, `opened ${before}`);
  const again = await requesterFor("c1", kubeConfig);
  for (let i = 0; i < 5; i++) {
    const reply = await again.get("/api/v1/namespaces/ns/configmaps/cm", JSON_ACCEPT, AbortSignal.timeout(5000));
    assert.equal(reply.status, 200);
  }
  assert.equal(pools.opened("c1"), before, "the warm pool is reused");

  // A new KubeConfig with the same server and CA (a re-signed token): same pool, new credentials.
  const rotated = await requesterFor("c1", kubeConfigOf(undefined, "k8s-aws-v1.bm90LWEtdG9rZW4"));
  const unauthorized = await rotated.get("/api/v1/namespaces/ns/configmaps/cm", JSON_ACCEPT, AbortSignal.timeout(5000));
  assert.equal(unauthorized.status, 401, "the new token is the one sent");
  assert.equal(pools.opened("c1"), before, "no new connection for a new token");
});

test("one cluster never gets more sockets than the cap, however many requests are in flight", async () => {
  const capped = new ConnectionPools({ maxSockets: 3 });
  try {
    const requester = await capped.requester("c1", await accessFromKubeConfig(kubeConfigOf()));
    sim.cluster("c1").faults.set({ latencyMs: 30 });
    const replies = await Promise.all(
      Array.from({ length: 24 }, () =>
        requester.get("/api/v1/namespaces/ns/configmaps/cm", JSON_ACCEPT, AbortSignal.timeout(10_000)),
      ),
    );
    assert.deepEqual(new Set(replies.map((reply) => reply.status)), new Set([200]));
    assert.ok(capped.opened("c1") <= 3, `opened ${capped.opened("c1")}`);
  } finally {
    sim.cluster("c1").faults.clear();
    await capped.close();
  }
});

test("a plain http:// server works (kubectl proxy): no TLS involved, the token is still sent", async () => {
  const seen: { path?: string; authorization?: string }[] = [];
  const plain: Server = createServer((req, res) => {
    seen.push({ path: req.url, authorization: req.headers.authorization });
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ kind: "Status", status: "Success" }));
  });
  await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve));
  const own = new ConnectionPools();
  try {
    const port = (plain.address() as { port: number }).port;
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{ name: "proxy", server: `http://127.0.0.1:${port}/`, skipTLSVerify: false }],
      users: [{ name: "u", token: "proxy-token" }],
      contexts: [{ name: "proxy", cluster: "proxy", user: "u" }],
      currentContext: "proxy",
    });
    const requester = await own.requester("proxy", await accessFromKubeConfig(kubeConfig));
    const reply = await requester.get("/version", JSON_ACCEPT, AbortSignal.timeout(5000));
    assert.equal(reply.status, 200);
    assert.deepEqual(seen, [{ path: "/version", authorization: "Bearer proxy-token" }]);
  } finally {
    await own.close();
    await new Promise((resolve) => plain.close(resolve));
  }
});

test("a kubeconfig asking to skip TLS verification is refused", async () => {
  const kubeConfig = kubeConfigOf();
  kubeConfig.clusters = kubeConfig.clusters.map((cluster) => ({ ...cluster, skipTLSVerify: true }));
  await assert.rejects(accessFromKubeConfig(kubeConfig), /TLS verification stays on/);
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
    await other.stop();
  }
});

test("HTTP/2 when the server offers it (kube-apiserver and the simulator do): a wave shares one connection", async () => {
  const fresh = new ConnectionPools();
  try {
    const requester = await fresh.requester("c1", await accessFromKubeConfig(kubeConfigOf()));
    sim.cluster("c1").faults.set({ latencyMs: 30 });
    const replies = await Promise.all(
      Array.from({ length: 40 }, () =>
        requester.get("/api/v1/namespaces/ns/configmaps/cm", JSON_ACCEPT, AbortSignal.timeout(10_000)),
      ),
    );
    assert.deepEqual(new Set(replies.map((reply) => reply.status)), new Set([200]));
    // Over HTTP/1.1 a cold wave of 40 opens 40 TLS connections.
    assert.equal(fresh.opened("c1"), 1, "one TLS connection carried the 40 parallel GETs");
  } finally {
    sim.cluster("c1").faults.clear();
    await fresh.close();
  }
});

test("with HTTP/2 turned off (DISABLE_HTTP2) the same wave goes out on HTTP/1.1 connections, up to the cap", async () => {
  const h1 = new ConnectionPools({ maxSockets: 8, http2: false });
  try {
    const requester = await h1.requester("c1", await accessFromKubeConfig(kubeConfigOf()));
    sim.cluster("c1").faults.set({ latencyMs: 30 });
    const replies = await Promise.all(
      Array.from({ length: 16 }, () =>
        requester.get("/api/v1/namespaces/ns/configmaps/cm", JSON_ACCEPT, AbortSignal.timeout(10_000)),
      ),
    );
    assert.deepEqual(new Set(replies.map((reply) => reply.status)), new Set([200]));
    assert.ok(h1.opened("c1") > 1 && h1.opened("c1") <= 8, `opened ${h1.opened("c1")} connections`);
  } finally {
    sim.cluster("c1").faults.clear();
    await h1.close();
  }
});

test("an HTTP/1.1-only TLS server still gets the wave in parallel, on up to the socket cap", async () => {
  const certificates = await makeServerCertificates("h1-only");
  let inFlight = 0;
  let maxInFlight = 0;
  const versions = new Set<string>();
  const server = createHttpsServer({ cert: certificates.certPem, key: certificates.keyPem }, (req, res) => {
    versions.add(req.httpVersion);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    setTimeout(() => {
      inFlight--;
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    }, 40);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const capped = new ConnectionPools({ maxSockets: 6 });
  try {
    const kubeConfig = kubeConfigOf(`https://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const caData = Buffer.from(certificates.caPem).toString("base64");
    kubeConfig.clusters = kubeConfig.clusters.map((cluster) => ({ ...cluster, caData }));
    const requester = await capped.requester("h1", await accessFromKubeConfig(kubeConfig));
    const replies = await Promise.all(
      Array.from({ length: 24 }, () => requester.get("/version", JSON_ACCEPT, AbortSignal.timeout(10_000))),
    );
    assert.deepEqual(new Set(replies.map((reply) => reply.status)), new Set([200]));
    assert.deepEqual([...versions], ["1.1"]);
    assert.ok(maxInFlight > 1, `the GETs ran one at a time (max in flight ${maxInFlight})`);
    assert.ok(capped.opened("h1") <= 6, `opened ${capped.opened("h1")} sockets, cap 6`);
  } finally {
    await capped.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
