/**
 * The API handler's HTTP behaviour with an in-memory store and a registry-only
 * connector: the bad-input table, routing (404/405), content negotiation,
 * compression, the 6 MB limit, error mapping (a 500 hides internals), telemetry.
 * Everything that talks to DynamoDB Local and the simulated EKS is in routes.test.ts.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, test } from "node:test";
import { brotliDecompressSync } from "node:zlib";
import { telemetryDeps } from "../../functions/_shared/telemetry.ts";
import { apiSettingsFromEnv } from "../../functions/api/config.ts";
import { createApiHandler } from "../../functions/api/handler.ts";
import type { ApiDeps } from "../../functions/api/types.ts";
import type { ClusterConnector } from "../../shared/clusters/connector.ts";
import { ClusterUnreachableError } from "../../shared/clusters/errors.ts";
import { DomainError } from "../../shared/errors.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import type { Release } from "../../shared/release/model.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import type { ReleaseStore } from "../../shared/store/release-store.ts";
import { bodyJson, bodyText, httpApiEvent, lambdaContext, RecordingLogger, RecordingMetrics } from "./support.ts";

const registryOnly: ClusterConnector = {
  list: () => [
    { name: "demo-eu", region: "eu-west-1" },
    { name: "demo-us", region: "us-east-1" },
  ],
  access: async (cluster) => {
    throw new ClusterUnreachableError(cluster, `cluster "${cluster}" refused the connection`);
  },
  invalidate: () => {},
};

function release(
  name: string,
  version: number,
  manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n",
): Release {
  return {
    name,
    namespace: "default",
    version,
    info: {
      status: version === 1 ? "superseded" : "deployed",
      last_deployed: "2025-12-01T10:00:00Z",
      description: "Install complete",
    },
    chart: { metadata: { name: "demo", version: "1.0.0", appVersion: "1.0" } },
    config: { password: "hunter2" },
    manifest,
  };
}

async function setup(options: { store?: ReleaseStore; env?: Record<string, string> } = {}) {
  const memory = new MemoryReleaseStore();
  await memory.putRevision("demo-eu", release("web", 1));
  await memory.putRevision("demo-eu", release("web", 2));
  const logger = new RecordingLogger();
  const metrics = new RecordingMetrics();
  const clock = { now: () => new Date("2025-12-02T12:00:00Z") };
  const deps: ApiDeps = {
    store: options.store ?? memory,
    clusters: registryOnly,
    kube: createKubeReader({ connector: registryOnly, clock }),
    clock,
    ...telemetryDeps(logger, metrics),
    settings: apiSettingsFromEnv(options.env ?? {}),
  };
  const handler = createApiHandler(deps);
  const call = (method: string, target: string, init: Parameters<typeof httpApiEvent>[2] = {}) =>
    handler(httpApiEvent(method, target, init), lambdaContext());
  return { call, logger, metrics, memory };
}

const base = "/clusters/demo-eu/namespaces/default/releases";
const otherKindCursor = Buffer.from(JSON.stringify({ k: "list", p: { after: "x" } })).toString("base64url");

// [method, target, status, error code, message fragment]
const BAD_INPUTS: [string, string, number, string, RegExp][] = [
  ["GET", "/clusters/-bad/releases", 400, "InvalidClusterName", /invalid cluster name "-bad"/],
  ["GET", "/clusters/a%20b/releases", 400, "InvalidClusterName", /invalid cluster name/],
  ["GET", `/clusters/${"c".repeat(101)}/releases`, 400, "InvalidClusterName", /at most 100/],
  ["GET", "/clusters/demo-eu/namespaces/Bad_NS/releases", 400, "InvalidNamespace", /invalid namespace "Bad_NS"/],
  ["GET", `/clusters/demo-eu/namespaces/${"n".repeat(64)}/releases`, 400, "InvalidNamespace", /at most 63/],
  ["GET", `${base}/UPPER/status`, 400, "InvalidReleaseName", /^releaseContent: Release name is invalid: UPPER$/],
  [
    "GET",
    `${base}/UPPER/revisions/1/manifest`,
    400,
    "InvalidReleaseName",
    /^releaseContent: Release name is invalid: UPPER$/,
  ],
  ["GET", `${base}/UPPER/history`, 400, "InvalidReleaseName", /^release name is invalid: UPPER$/],
  ["GET", `${base}/${"a".repeat(54)}/history`, 400, "InvalidReleaseName", /^release name is invalid: a{54}$/],
  // ?revision=0 (or less) is the latest, Helm's rule; what is not an integer is refused.
  ["GET", `${base}/web/status?revision=two`, 400, "InvalidRevision", /invalid revision "two": must be an integer/],
  ["GET", `${base}/web/status?revision=2147483648`, 400, "InvalidRevision", /no greater than 2147483647/],
  ["GET", `${base}/web/status?revision=abc`, 400, "InvalidRevision", /invalid revision "abc"/],
  ["GET", `${base}/web/status?revision=1.5`, 400, "InvalidRevision", /invalid revision/],
  ["GET", `${base}/web/status?revision=2147483648`, 400, "InvalidRevision", /no greater than 2147483647/],
  ["GET", `${base}/web/status?revision=1&revision=2`, 400, "InvalidRevision", /"1,2"/],
  ["GET", `${base}/web/status?output=xml`, 400, "InvalidParameter", /output: "xml" is not an output format/],
  ["GET", `${base}/web/status?revison=2`, 400, "InvalidParameter", /revison: is not a known query parameter/],
  // ?at= and ?against= are the history's route on the same URL (routes/status-at.ts): the same words as before.
  ["GET", `${base}/web/status?against=1h`, 400, "InvalidQuery", /^against needs at \(the time to compare\)$/],
  ["GET", `${base}/web/status?at=1h&revision=2`, 400, "InvalidQuery", /^at reads the status history: it takes no/],
  [
    "GET",
    `${base}/web/status?at=1h&foo=1`,
    400,
    "InvalidParameter",
    /foo: is not a known query parameter \(allowed here: revision, output, drift, at, against\)/,
  ],
  ["GET", `${base}/UPPER/status?at=1h`, 400, "InvalidReleaseName", /^releaseContent: Release name is invalid: UPPER$/],
  ["GET", `${base}?status=bogus`, 400, "InvalidReleaseStatus", /invalid release status "bogus"/],
  ["GET", `${base}?max=ten`, 400, "InvalidParameter", /max: "ten" is not an integer/],
  ["GET", `${base}?offset=-1`, 400, "ValidationFailed", /invalid offset -1: must be a whole number >= 0/],
  ["GET", `${base}?deployed=maybe`, 400, "InvalidParameter", /deployed: "maybe" is not a boolean/],
  ["GET", `${base}?filter=%5B`, 400, "InvalidFilter", /error parsing regexp: missing closing \]: `\[`/],
  [
    "GET",
    `${base}?selector=a%20b%20c`,
    400,
    "InvalidSelector",
    /^unable to parse requirement: found .b., expected: in, notin, =, ==, !=, gt, lt$/,
  ],
  ["GET", `${base}?cursor=${otherKindCursor}`, 400, "InvalidCursor", /cursor/i],
  ["GET", `${base}?output=xml`, 400, "InvalidParameter", /one of json, yaml, table/],
  ["GET", `${base}/web/history?max=ten`, 400, "InvalidParameter", /max: "ten"/],
  ["GET", `${base}/web/history?cursor=!!!`, 400, "InvalidCursor", /cursor/i],
  ["GET", `${base}/web/history?cursor=${otherKindCursor}`, 400, "InvalidCursor", /cursor/i],
  ["GET", `${base}/web/revisions/1.5/manifest`, 400, "InvalidRevision", /invalid revision "1.5"/],
  ["GET", `${base}/web/revisions/x/manifest`, 400, "InvalidRevision", /invalid revision "x"/],
  ["GET", "/healthz?verbose=1", 400, "InvalidParameter", /this route takes none/],
  [
    "GET",
    "/clusters/nowhere/releases",
    404,
    "ClusterNotFound",
    /unknown cluster "nowhere" \(known: demo-eu, demo-us\)/,
  ],
  ["GET", "/clusters/nowhere/namespaces/default/releases/web/status", 404, "ClusterNotFound", /unknown cluster/],
  ["GET", `${base}/ghost/history`, 404, "ReleaseNotFound", /not found/],
  ["GET", `${base}/ghost/status`, 404, "ReleaseNotFound", /not found/],
  ["GET", `${base}/web/revisions/99/manifest`, 404, "ReleaseNotFound", /not found/],
  ["GET", "/nope", 404, "RouteNotFound", /no route for GET \/nope/],
  ["GET", "/clusters/demo-eu", 404, "RouteNotFound", /openapi\.json/],
  ["DELETE", "/clusters", 405, "MethodNotAllowed", /DELETE is not allowed on \/clusters; allowed: GET/],
  ["POST", "/clusters/demo-eu/releases", 405, "MethodNotAllowed", /allowed: GET/],
  ["GET", "/clusters/demo-eu/releases/import", 405, "MethodNotAllowed", /allowed: POST/],
];

describe("every bad input is a 4xx JSON error that says what is wrong", () => {
  for (const [method, target, status, code, message] of BAD_INPUTS) {
    test(`${method} ${target.slice(0, 90)} -> ${status} ${code}`, async () => {
      const { call } = await setup();
      const result = await call(method, target);
      assert.equal(result.statusCode, status, bodyText(result));
      assert.match(String(result.headers?.["content-type"]), /^application\/json/);
      const body = bodyJson(result) as { error: { code: string; message: string } };
      assert.equal(body.error.code, code);
      assert.match(body.error.message, message);
    });
  }
});

describe("import body errors", () => {
  const target = "/clusters/demo-eu/releases/import";
  const cases: [string, Parameters<typeof httpApiEvent>[2], number, string, RegExp][] = [
    ["empty body", {}, 400, "InvalidBody", /body is empty/],
    ["not JSON", { body: '{"kind": "Secret", "data": {"release": "c2VjcmV0"' }, 400, "InvalidBody", /not valid JSON/],
    ["bad base64", { body: "%%%not-base64%%%", isBase64Encoded: true }, 400, "InvalidBody", /not valid base64/],
    [
      "unsupported type",
      { body: "a,b", headers: { "content-type": "text/csv" } },
      415,
      "UnsupportedMediaType",
      /text\/csv/,
    ],
    // The types a browser sends cross-site without a preflight (issue #38 item 5).
    [
      "text/plain",
      { body: "{}", headers: { "content-type": "text/plain" } },
      415,
      "UnsupportedMediaType",
      /text\/plain/,
    ],
    [
      "a form",
      { body: "a=b", headers: { "content-type": "application/x-www-form-urlencoded" } },
      415,
      "UnsupportedMediaType",
      /application\/json or application\/yaml/,
    ],
    ["too large", { body: `{"x":"${"a".repeat(3000)}"}` }, 413, "RequestTooLarge", /over the 2048-byte limit/],
    // Parsers quote the input around the fault; the secret must not come back with the 400.
    [
      "JSON with an unquoted value",
      { body: '{"kind": "Secret", "data": {"password": c2VjcmV0}}' },
      400,
      "InvalidBody",
      /not valid JSON: unexpected character/,
    ],
    [
      "YAML block scalar header with extra characters",
      { body: "kind: Secret\ndata:\n  password: |c2VjcmV0\n", headers: { "content-type": "application/yaml" } },
      400,
      "InvalidBody",
      /Block scalar header includes extra characters at line 3, column 14$/,
    ],
    [
      "YAML alias to no anchor",
      { body: "kind: Secret\nstringData:\n  password: *c2VjcmV0\n", headers: { "content-type": "application/yaml" } },
      400,
      "InvalidBody",
      /not valid YAML: Unresolved alias/,
    ],
  ];
  for (const [name, init, status, code, message] of cases) {
    test(`${name} -> ${status} ${code}`, async () => {
      const { call, logger } = await setup({ env: { API_MAX_BODY_BYTES: "2048" } });
      const result = await call("POST", target, init);
      assert.equal(result.statusCode, status, bodyText(result));
      const body = bodyJson(result) as { error: { code: string; message: string } };
      assert.equal(body.error.code, code);
      assert.match(body.error.message, message);
      // The body (it carries release values) is never echoed or logged.
      assert.doesNotMatch(bodyText(result), /c2VjcmV0/);
      assert.doesNotMatch(logger.text(), /c2VjcmV0/);
    });
  }
});

test("a YAML import never prints parser warnings (they quote the body's line) to stderr", async () => {
  const { call } = await setup();
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
  process.on("warning", onWarning);
  try {
    const body = "kind: Secret\nmetadata:\n  name: x\nstringData:\n  password: !c2VjcmV0 hunter2\n";
    const result = await call("POST", "/clusters/demo-eu/releases/import", {
      body,
      headers: { "content-type": "application/yaml" },
    });
    assert.equal(result.statusCode, 200, bodyText(result));
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off("warning", onWarning);
  }
  assert.deepEqual(
    warnings.filter((w) => /c2VjcmV0|hunter2/.test(w)),
    [],
  );
});

test("a 500 hides internals; the log keeps them", async () => {
  const failing = new MemoryReleaseStore();
  failing.history = async () => {
    throw new Error("connect ECONNREFUSED 10.1.2.3:443 arn:aws:dynamodb:eu-west-1:123456789012:table/secret-table");
  };
  const { call, logger } = await setup({ store: failing });
  const result = await call("GET", `${base}/web/history`);
  assert.equal(result.statusCode, 500);
  const text = bodyText(result);
  assert.doesNotMatch(text, /ECONNREFUSED|10\.1\.2\.3|secret-table|at .*\.ts/);
  const body = bodyJson(result) as { error: { code: string; message: string; requestId: string } };
  assert.equal(body.error.code, "InternalError");
  assert.match(body.error.message, /quote the request id/);
  assert.ok(body.error.requestId);
  const logged = logger.lines.find((line) => line.message === "request failed");
  assert.match(JSON.stringify(logged), /ECONNREFUSED/);
});

test("an internal DomainError is a 500 without its message; corrupt data says so without details", async () => {
  class BrokenInvariantError extends DomainError {
    readonly kind = "internal" as const;
    readonly code = "BrokenInvariant";
  }
  class ChunkMissingError extends DomainError {
    readonly kind = "corrupt" as const;
    readonly code = "ManifestCorrupt";
  }
  for (const [error, pattern] of [
    [new BrokenInvariantError("index 7 of table x out of range"), /internal error/],
    [new ChunkMissingError("chunk BLOB#0000000002#ab#0003 missing"), /stored release data is damaged/],
  ] as const) {
    const store = new MemoryReleaseStore();
    store.getRevision = async () => {
      throw error;
    };
    const { call } = await setup({ store });
    const result = await call("GET", `${base}/web/revisions/1/manifest`);
    assert.equal(result.statusCode, 500);
    const body = bodyJson(result) as { error: { code: string; message: string } };
    assert.match(body.error.message, pattern);
    assert.doesNotMatch(bodyText(result), /index 7|BLOB#/);
  }
});

test("an unreachable cluster is a 502 naming the cluster", async () => {
  const { call } = await setup();
  const result = await call("GET", `${base}/web/status`);
  assert.equal(result.statusCode, 502);
  const body = bodyJson(result) as { error: { code: string; message: string } };
  assert.equal(body.error.code, "ClusterUnreachable");
  assert.match(body.error.message, /demo-eu/);
});

describe("content negotiation", () => {
  const cases: [string, Record<string, string>, number, RegExp][] = [
    ["?output=yaml", {}, 200, /^application\/yaml/],
    ["", { accept: "application/yaml" }, 200, /^application\/yaml/],
    ["", { accept: "application/json" }, 200, /^application\/json/],
    ["", { accept: "text/html, application/yaml;q=0.5, application/json;q=0.9" }, 200, /^application\/json/],
    ["", { accept: "*/*" }, 200, /^application\/json/],
    ["?output=json", { accept: "application/yaml" }, 200, /^application\/json/],
    ["", { accept: "image/png" }, 406, /^application\/json/],
    // A YAML alias counts when named; a wildcard picks only what the answer's Content-Type is.
    ["", { accept: "text/x-yaml" }, 200, /^application\/yaml/],
    ["", { accept: "text/*" }, 200, /^text\/plain/],
    // The more specific range wins at equal q; an explicit q=0 refuses a type even under */*.
    ["", { accept: "*/*, application/yaml" }, 200, /^application\/yaml/],
    ["", { accept: "application/json;q=0, */*" }, 200, /^application\/yaml/],
  ];
  for (const [query, headers, status, type] of cases) {
    test(`list ${query || "(no ?output)"} Accept: ${headers.accept ?? "-"} -> ${status} ${type.source}`, async () => {
      const { call } = await setup();
      const result = await call("GET", `${base}${query}`, { headers });
      assert.equal(result.statusCode, status, bodyText(result));
      assert.match(String(result.headers?.["content-type"]), type);
    });
  }

  test("the manifest is YAML text by default, JSON on request, Secret values redacted", async () => {
    const { call, memory } = await setup();
    const manifest = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  password: aHVudGVyMg==\n";
    await memory.putRevision("demo-eu", release("vault", 1, manifest));
    const yaml = await call("GET", `${base}/vault/revisions/1/manifest`);
    assert.equal(yaml.statusCode, 200);
    assert.match(String(yaml.headers?.["content-type"]), /^application\/yaml/);
    assert.match(bodyText(yaml), /password: <redacted>/);
    assert.doesNotMatch(bodyText(yaml), /aHVudGVyMg==/);
    const json = await call("GET", `${base}/vault/revisions/1/manifest`, { headers: { accept: "application/json" } });
    const body = bodyJson(json) as { revision: number; manifest: string };
    assert.equal(body.revision, 1);
    assert.doesNotMatch(body.manifest, /aHVudGVyMg==/);
  });
});

describe("compression", () => {
  test("gzip when accepted: smaller, base64, Vary", async () => {
    const { call } = await setup();
    const plain = await call("GET", `${base}/web/history`);
    const gz = await call("GET", `${base}/web/history`, { headers: { "accept-encoding": "gzip, deflate" } });
    assert.equal(gz.headers?.["Content-Encoding"], "gzip");
    assert.equal(gz.isBase64Encoded, true);
    assert.match(String(gz.headers?.Vary ?? gz.headers?.vary), /Accept-Encoding/);
    assert.deepEqual(bodyJson(gz), bodyJson(plain));
    assert.ok(Buffer.from(gz.body!, "base64").length < Buffer.byteLength(plain.body!));
  });

  test("br preferred when the client ranks it first; nothing when refused", async () => {
    const { call } = await setup();
    const br = await call("GET", `${base}/web/history`, { headers: { "accept-encoding": "gzip;q=0.5, br" } });
    assert.equal(br.headers?.["Content-Encoding"], "br");
    assert.match(brotliDecompressSync(Buffer.from(br.body!, "base64")).toString(), /"history"/);
    const identity = await call("GET", `${base}/web/history`, { headers: { "accept-encoding": "gzip;q=0, identity" } });
    assert.equal(identity.headers?.["Content-Encoding"], undefined);
    assert.equal(identity.isBase64Encoded, undefined);
  });

  test("errors are compressed too", async () => {
    const { call } = await setup();
    const result = await call("GET", `/clusters/demo-eu/namespaces/default/releases/${"x".repeat(60)}/history`, {
      headers: { "accept-encoding": "gzip" },
    });
    assert.equal(result.statusCode, 400);
    assert.match((bodyJson(result) as { error: { code: string } }).error.code, /InvalidReleaseName/);
  });
});

describe("Lambda's 6 MB response limit", () => {
  test("a manifest over 6 MB is a 413 that says how to ask for less", async () => {
    const { call, memory } = await setup();
    const big = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  blob: ${randomBytes(4_800_000).toString("base64")}\n`;
    await memory.putRevision("demo-eu", release("big", 1, big));
    const result = await call("GET", `${base}/big/revisions/1/manifest`);
    assert.equal(result.statusCode, 413);
    const body = bodyJson(result) as { error: { code: string; message: string } };
    assert.equal(body.error.code, "ResponseTooLarge");
    assert.match(body.error.message, /over the 6291456-byte Lambda response limit/);
    assert.match(body.error.message, /Accept-Encoding: gzip/);
  });

  test("the limit is measured after compression, so a compressible response fits when gzipped", async () => {
    const { call, memory } = await setup({ env: { API_MAX_RESPONSE_BYTES: "4096" } });
    const lines = Array.from({ length: 400 }, (_, i) => `  key${i}: value`).join("\n");
    await memory.putRevision(
      "demo-eu",
      release("wide", 1, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: w\ndata:\n${lines}\n`),
    );
    const plain = await call("GET", `${base}/wide/revisions/1/manifest`);
    assert.equal(plain.statusCode, 413);
    const gz = await call("GET", `${base}/wide/revisions/1/manifest`, { headers: { "accept-encoding": "gzip" } });
    assert.equal(gz.statusCode, 200);
    assert.match(bodyText(gz), /key399: value/);
  });
});

describe("telemetry", () => {
  test("one log line and one metric set per request, without credentials", async () => {
    const { call, logger, metrics } = await setup();
    await call("GET", `${base}/web/history`, {
      headers: {
        authorization:
          "AWS4-HMAC-SHA256 Credential=AKIAEXAMPLE/20251202/eu-west-1/execute-api/aws4_request, Signature=deadbeef",
      },
    });
    await call("GET", "/nope");
    const requests = logger.lines.filter((line) => line.message === "request");
    assert.equal(requests.length, 2);
    assert.equal(
      requests[0].attributes.route,
      "GET /clusters/{cluster}/namespaces/{namespace}/releases/{name}/history",
    );
    assert.equal(requests[0].attributes.cluster, "demo-eu");
    assert.equal(requests[0].attributes.release, "default/web");
    assert.equal(requests[0].attributes.statusCode, 200);
    assert.equal(typeof requests[0].attributes.durationMs, "number");
    assert.ok(requests[0].attributes.requestId);
    assert.equal(requests[1].attributes.outcome, "client-error");
    assert.doesNotMatch(logger.text(), /deadbeef|AKIAEXAMPLE|hunter2/);
    assert.equal(metrics.published.length, 2);
    assert.equal(metrics.published[0].dimensions.outcome, "success");
    assert.equal(metrics.published[0].metrics.Requests, 1);
    assert.equal(typeof metrics.published[0].metrics.RequestLatency, "number");
    assert.equal(metrics.published[1].dimensions.route, "unmatched");
    // Powertools' middlewares: the Lambda context on every line, keys reset after the request, a cold start once.
    assert.equal(typeof requests[0].attributes.function_request_id, "string");
    assert.equal(requests[0].attributes.function_name, "helm-status-lambda-dev-api");
    assert.notEqual(requests[0].attributes.function_request_id, requests[1].attributes.function_request_id);
    logger.info("after the requests");
    assert.equal(logger.lines.at(-1)?.attributes.requestId, undefined, "the request's keys were reset");
    assert.equal(metrics.coldStarts, 2, "captureColdStartMetric is asked on every invocation (Powertools counts once)");
  });

  test("history never returns the release's values", async () => {
    const { call } = await setup();
    const result = await call("GET", `${base}/web/history`);
    assert.doesNotMatch(bodyText(result), /hunter2|"config"/);
  });
});

test("configuration is validated at cold start with every problem named", () => {
  assert.throws(
    () => apiSettingsFromEnv({ STATUS_CONCURRENCY: "lots", STATUS_DEADLINE_MARGIN_MS: "999999" }),
    (error: Error) =>
      /STATUS_CONCURRENCY="lots" is not a whole number/.test(error.message) &&
      /STATUS_DEADLINE_MARGIN_MS=999999 is out of range/.test(error.message),
  );
});
