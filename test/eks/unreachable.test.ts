/**
 * Unreachable endpoints with the real SDK clients: a port nobody listens on (refused)
 * and a server that accepts connections and never answers (a black hole). Both must
 * fail within the configured deadline with a message naming the cluster and endpoint.
 */
import assert from "node:assert/strict";
import { createServer, type Server, type Socket } from "node:net";
import { after, before, test } from "node:test";
import { ClusterUnreachableError } from "../../shared/clusters/errors.ts";
import { createEksConnector } from "../../shared/eks/connector.ts";

const keys = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" };
const sockets = new Set<Socket>();
let blackHole: Server;
let blackHolePort = 0;
let refusedPort = 0;

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)),
  );
}

before(async () => {
  blackHole = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  blackHolePort = await listen(blackHole);
  const closed = createServer();
  refusedPort = await listen(closed);
  await new Promise((resolve) => closed.close(resolve));
});

after(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => blackHole.close(resolve));
});

test("a refused EKS endpoint fails at once with a clear ClusterUnreachableError", async () => {
  const endpoint = `http://127.0.0.1:${refusedPort}`;
  const connector = createEksConnector({
    registry: [{ name: "c1", region: "us-east-1", eksEndpoint: endpoint }],
    credentials: async () => keys,
    requestTimeoutMs: 2000,
  });
  await assert.rejects(connector.access("c1"), (error: unknown) => {
    assert.ok(error instanceof ClusterUnreachableError);
    assert.equal(error.kind, "unavailable");
    assert.equal(error.message, `DescribeCluster for cluster "c1": cannot reach ${endpoint} (ECONNREFUSED)`);
    assert.ok(error.cause);
    return true;
  });
});

test("an EKS endpoint that never answers fails after the deadline, not the SDK's default", async () => {
  const endpoint = `http://127.0.0.1:${blackHolePort}`;
  const connector = createEksConnector({
    registry: [{ name: "c1", region: "us-east-1", eksEndpoint: endpoint }],
    credentials: async () => keys,
    requestTimeoutMs: 300,
  });
  await assert.rejects(connector.access("c1"), (error: unknown) => {
    assert.ok(error instanceof ClusterUnreachableError, String(error));
    assert.equal(error.message, `DescribeCluster for cluster "c1": ${endpoint} did not answer within 300 ms`);
    return true;
  });
});

test("an STS endpoint that never answers fails the AssumeRole the same way", async () => {
  const endpoint = `http://127.0.0.1:${blackHolePort}`;
  const connector = createEksConnector({
    registry: [{ name: "c1", region: "us-east-1", roleArn: "arn:aws:iam::123456789012:role/r", stsEndpoint: endpoint }],
    credentials: async () => keys,
    requestTimeoutMs: 300,
  });
  await assert.rejects(connector.access("c1"), (error: unknown) => {
    assert.ok(error instanceof ClusterUnreachableError, String(error));
    assert.match(
      error.message,
      /^AssumeRole arn:aws:iam::123456789012:role\/r for cluster "c1": .* did not answer within 300 ms$/,
    );
    return true;
  });
});
