/**
 * POST .../releases/import under the reliability rules (issue 14): bodies that
 * are not UTF-8 or hold no Kubernetes object are 400s, deep values and alias
 * bombs fail by name, and an import that meets the Lambda's deadline answers
 * 207 with what was stored and what was not started.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { gzipSync } from "node:zlib";
import { telemetryDeps } from "../../functions/_shared/telemetry.ts";
import { apiSettingsFromEnv } from "../../functions/api/config.ts";
import { createApiHandler } from "../../functions/api/handler.ts";
import type { ApiDeps } from "../../functions/api/types.ts";
import type { ClusterConnector } from "../../shared/clusters/connector.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { encodeHelmSecret } from "../../shared/release/helm-codec.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { makeRelease } from "../store/fixtures.ts";
import { bodyJson, bodyText, httpApiEvent, lambdaContext, RecordingLogger, RecordingMetrics } from "./support.ts";

const registryOnly: ClusterConnector = {
  list: () => [{ name: "demo-eu", region: "eu-west-1" }],
  access: async () => assert.fail("import never reads a cluster"),
  invalidate: () => {},
};
const target = "/clusters/demo-eu/releases/import";
const list = (items: unknown[]) => ({ apiVersion: "v1", kind: "List", items });

function setup(store = new MemoryReleaseStore()) {
  const deps: ApiDeps = {
    store,
    clusters: registryOnly,
    kube: createKubeReader({ connector: registryOnly }),
    clock: { now: () => new Date("2025-12-02T12:00:00Z") },
    ...telemetryDeps(new RecordingLogger(), new RecordingMetrics()),
    settings: apiSettingsFromEnv({}),
  };
  const handler = createApiHandler(deps);
  return {
    store,
    call: (init: Parameters<typeof httpApiEvent>[2], remainingMs = 29_000) =>
      handler(httpApiEvent("POST", target, init), lambdaContext(remainingMs)),
  };
}

test("a body that is not UTF-8, or holds no Kubernetes object, is a 400 with the error shape", async () => {
  const { call } = setup();
  const invalidUtf8 = Buffer.concat([
    Buffer.from('{"kind":"List","items":[],"x":"'),
    Buffer.from([0xff, 0xfe]),
    Buffer.from('"}'),
  ]);
  const cases: [string, Parameters<typeof httpApiEvent>[2], RegExp][] = [
    ["invalid UTF-8", { body: invalidUtf8.toString("base64"), isBase64Encoded: true }, /not valid UTF-8/],
    ["a lone surrogate", { body: '{"kind":"List","items":[],"x":"\ud800"}' }, /not valid UTF-8/],
    ["[1,2,3]", { body: "[1,2,3]" }, /not a Kubernetes object/],
    ["{}", { body: "{}" }, /not a Kubernetes object/],
    ["[]", { body: "[]" }, /not a Kubernetes object/],
  ];
  for (const [name, init, message] of cases) {
    const result = await call(init);
    assert.equal(result.statusCode, 400, `${name}: ${bodyText(result)}`);
    const body = bodyJson(result) as { error: { code: string; message: string } };
    assert.equal(body.error.code, "InvalidBody", name);
    assert.match(body.error.message, message, name);
  }
  const empty = await call({ body: JSON.stringify(list([])) });
  assert.equal(empty.statusCode, 200, bodyText(empty));
  assert.deepEqual((bodyJson(empty) as { results: unknown[]; complete: boolean }).results, []);
});

test("objects nested 10,000 levels never make a 500: a non-Helm one is skipped, a Helm one fails by name (422)", async () => {
  const { call, store } = setup();
  const deep = `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`;
  // A body whose first object is deep *as a Kubernetes object*: it is skipped or failed, never a 500.
  const body = `{"apiVersion":"v1","kind":"List","items":[${JSON.stringify(encodeHelmSecret(makeRelease({ name: "one" })))},{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":${deep}},${JSON.stringify(encodeHelmSecret(makeRelease({ name: "two" })))}]}`;
  const result = await call({ body });
  assert.equal(result.statusCode, 200, bodyText(result));
  const summary = bodyJson(result) as { imported: number; skipped: number };
  assert.deepEqual([summary.imported, summary.skipped], [2, 1]);
  assert.equal((await store.getLatest({ cluster: "demo-eu", namespace: "default", name: "two" })).version, 1);

  const release = makeRelease({ name: "deep" });
  const json = JSON.stringify({ ...release, config: "__DEEP__" }).replace('"__DEEP__"', deep);
  const secret = {
    ...encodeHelmSecret(release),
    data: { release: Buffer.from(gzipSync(json).toString("base64")).toString("base64") },
  };
  const failed = await call({ body: JSON.stringify(list([secret, encodeHelmSecret(makeRelease({ name: "three" }))])) });
  assert.equal(failed.statusCode, 422, bodyText(failed));
  const results = (bodyJson(failed) as { results: { outcome: string; error?: string }[] }).results;
  assert.deepEqual(
    results.map((r) => r.outcome),
    ["failed", "imported"],
  );
  assert.match(results[0].error ?? "", /nested deeper than 256 levels/);
});

test("an import that meets the deadline answers 207: what was stored, how many were not started, a hint", async () => {
  const store = new MemoryReleaseStore();
  const put = store.putRevision.bind(store);
  // The real store, slowed like a remote table, so a 6.5 s budget (minus the 4.5 s margins: 2 s of writes) runs out.
  store.putRevision = async (cluster, release) => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    return put(cluster, release);
  };
  const { call } = setup(store);
  const items = Array.from({ length: 1000 }, (_, i) => encodeHelmSecret(makeRelease({ name: `r${i}` })));
  const body = JSON.stringify(list(items));
  const first = await call({ body }, 6_500);
  assert.equal(first.statusCode, 207, bodyText(first));
  const partial = bodyJson(first) as { imported: number; notStarted: number; complete: boolean; hint: string };
  assert.equal(partial.complete, false);
  assert.ok(partial.imported > 0 && partial.notStarted > 0, JSON.stringify({ ...partial, results: undefined }));
  assert.equal(partial.imported + partial.notStarted, 1000);
  assert.match(partial.hint, /re-run the same import to continue/);
  const second = await call({ body });
  assert.equal(second.statusCode, 200, bodyText(second));
  const rest = bodyJson(second) as { imported: number; unchanged: number; complete: boolean };
  assert.deepEqual([rest.imported, rest.unchanged, rest.complete], [partial.notStarted, partial.imported, true]);
});
