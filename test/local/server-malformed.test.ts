import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { isShapedClientError, malformedCases, sendRaw } from "../../bench/malformed-requests.ts";
import { type LocalServer, startLocalServer } from "../../local/server.ts";
import type { ClusterConnector } from "../../shared/clusters/connector.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { testApiHandler } from "../api/support.ts";

/** Issue 14 item 6: every malformed request gets a 4xx with {error: {code, message}}, never a bare status. */

const registryOnly: ClusterConnector = {
  list: () => [{ name: "demo-eu", region: "eu-west-1" }],
  access: async () => assert.fail("no cluster is read"),
  invalidate: () => {},
};
let server: LocalServer;

before(async () => {
  const store = new MemoryReleaseStore();
  const handler = testApiHandler({
    store,
    clusters: registryOnly,
  });
  server = await startLocalServer({ handler, port: 0 });
});

after(() => server.close());

for (const { name, request, status } of malformedCases()) {
  test(`${name} -> ${status ?? "4xx"} with the error shape`, async () => {
    const answer = await sendRaw(server.port, request());
    assert.ok(
      isShapedClientError(answer),
      `${answer.status} ${answer.headers["content-type"]} ${answer.body.slice(0, 200)}`,
    );
    if (status) assert.equal(answer.status, status, answer.body);
  });
}

test("/namespaces/../releases is not the cluster-wide list; the real path still is", async () => {
  const dots = await sendRaw(
    server.port,
    Buffer.from(
      "GET /clusters/demo-eu/namespaces/../releases HTTP/1.1\r\nHost: 127.0.0.1\r\nconnection: close\r\n\r\n",
    ),
  );
  assert.equal(dots.status, 400);
  assert.match(JSON.parse(dots.body).error.message, /invalid namespace/);
  const list = await sendRaw(
    server.port,
    Buffer.from("GET /clusters/demo-eu/releases HTTP/1.1\r\nHost: 127.0.0.1\r\nconnection: close\r\n\r\n"),
  );
  assert.equal(list.status, 200, list.body);
});
