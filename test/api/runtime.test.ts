/** The shared Lambda runtime (functions/_shared): configuration read once with every problem at once, the deadline. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { LambdaConfigError } from "../../functions/_shared/config.ts";
import { createLambdaRuntime, DEFAULT_BUDGET_MS, deadlineFrom } from "../../functions/_shared/runtime.ts";
import { apiConfigFromEnv } from "../../functions/api/config.ts";

test("every configuration problem of every section is reported at once, each naming its variable", () => {
  assert.throws(
    () =>
      apiConfigFromEnv({
        AWS_REGION: "eu-west-1",
        RELEASES_TABLE: "x",
        CLUSTERS: "[{]",
        STATUS_CONCURRENCY: "lots",
        API_MAX_BODY_BYTES: "1",
      }),
    (error: unknown) => {
      assert.ok(error instanceof LambdaConfigError);
      assert.match(error.message, /^invalid API configuration: /);
      for (const variable of ["RELEASES_TABLE", "CLUSTERS", "STATUS_CONCURRENCY", "API_MAX_BODY_BYTES"]) {
        assert.match(error.message, new RegExp(variable), variable);
      }
      return true;
    },
  );
});

test("a valid configuration builds the runtime: the registry is the connector's list", async () => {
  const config = apiConfigFromEnv({
    AWS_REGION: "eu-west-1",
    CLUSTERS: JSON.stringify([{ name: "prod", region: "eu-west-1" }]),
    POWERTOOLS_LOG_LEVEL: "warn",
    POWERTOOLS_SERVICE_NAME: "helm-status-audit",
  });
  assert.deepEqual(config.telemetry, {
    serviceName: "helm-status-audit",
    logLevel: "WARN",
    metricsNamespace: "HelmStatus",
  });
  const runtime = createLambdaRuntime(config);
  try {
    assert.deepEqual(runtime.clusters.list(), [{ name: "prod", region: "eu-west-1" }]);
    assert.equal(runtime.kube.settings.http2, true, "HTTP/2 is offered by default");
  } finally {
    await runtime.close();
  }
});

test("DISABLE_HTTP2 (client-go's switch: any non-empty value) keeps the runtime's reader on HTTP/1.1", async () => {
  for (const [value, http2] of [
    ["1", false],
    ["true", false],
    ["", true],
  ] as const) {
    const config = apiConfigFromEnv({ AWS_REGION: "eu-west-1", CLUSTERS: "[]", DISABLE_HTTP2: value });
    assert.deepEqual(config.kube, { http2 }, `DISABLE_HTTP2=${JSON.stringify(value)}`);
    const runtime = createLambdaRuntime(config);
    try {
      assert.equal(runtime.kube.settings.http2, http2);
    } finally {
      await runtime.close();
    }
  }
});

test("the deadline is the Lambda's remaining time minus the margin, never in the past", () => {
  const now = Date.now();
  const at = deadlineFrom({ getRemainingTimeInMillis: () => 10_000 }, 1_500);
  assert.ok(at >= now + 8_500 && at <= Date.now() + 8_500);
  assert.ok(deadlineFrom({ getRemainingTimeInMillis: () => 100 }, 1_500) <= Date.now());
  assert.ok(deadlineFrom(undefined, 0) >= now + DEFAULT_BUDGET_MS);
});

test("a caller that waits less than the Lambda runs bounds the deadline (Teams' budget), the Lambda's time still counts", () => {
  const lambda = (ms: number) => ({ getRemainingTimeInMillis: () => ms });
  assert.equal(deadlineFrom(lambda(30_000), 0, { now: 1_000, budgetMs: 4_000 }), 5_000);
  assert.equal(deadlineFrom(lambda(2_000), 0, { now: 1_000, budgetMs: 4_000 }), 3_000, "the Lambda ends first");
  assert.equal(deadlineFrom(undefined, 0, { now: 1_000, budgetMs: 4_000 }), 5_000);
});
