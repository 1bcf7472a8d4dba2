/**
 * EKS throttling DescribeCluster, through the real SDK client: a loopback server that answers 429
 * ThrottlingException ("Rate exceeded") as EKS does. The connector's one retry policy (shared/retry.ts via
 * callFor) makes the attempts; the SDK's own retries are off, so a throttled refresh is 3 calls, not 2 x 3.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { after, before, test } from "node:test";
import { ClusterUnreachableError } from "../../shared/clusters/errors.ts";
import { createEksConnector } from "../../shared/eks/connector.ts";

const keys = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" };
const CA = Buffer.from("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n").toString("base64");
let server: Server;
let port = 0;
/** Requests answered so far, and how many of the next ones are throttled. */
const eks = { requests: 0, throttleNext: 0 };

before(async () => {
  server = createServer((request, response) => {
    eks.requests++;
    request.resume();
    if (eks.throttleNext > 0) {
      eks.throttleNext--;
      response.writeHead(429, { "content-type": "application/json", "x-amzn-errortype": "ThrottlingException" });
      response.end(JSON.stringify({ message: "Rate exceeded" }));
      return;
    }
    const name = decodeURIComponent(String(request.url).split("/")[2] ?? "");
    response.writeHead(200, { "content-type": "application/json" });
    response.end(
      JSON.stringify({
        cluster: { name, status: "ACTIVE", endpoint: `https://${name}.eks.test`, certificateAuthority: { data: CA } },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
});
after(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const connector = () =>
  createEksConnector({
    registry: [{ name: "c1", region: "us-east-1", eksEndpoint: `http://127.0.0.1:${port}` }],
    credentials: async () => keys,
    requestTimeoutMs: 5000,
  });

test("throttled twice, then answered: 3 DescribeCluster requests in all", async () => {
  eks.requests = 0;
  eks.throttleNext = 2;
  assert.equal((await connector().access("c1")).server, "https://c1.eks.test");
  assert.equal(eks.requests, 3);
});

test("throttled throughout: 3 requests (with the SDK's retries on top: 6), then a clear error", async () => {
  eks.requests = 0;
  eks.throttleNext = 100;
  await assert.rejects(connector().access("c1"), (error: unknown) => {
    assert.ok(error instanceof ClusterUnreachableError);
    assert.match(error.message, /ThrottlingException: Rate exceeded/);
    return true;
  });
  assert.equal(eks.requests, 3);
  eks.throttleNext = 0;
});
