/**
 * Issue #39 item 10: DynamoDB that accepts connections and never answers (a loopback server that reads requests
 * and says nothing). Every store call is given the request's remaining budget, so the API answers the documented
 * 504 StoreTimeout by its own deadline, instead of three 20-second attempts outliving the Lambda (the runtime's
 * timeout then answered a generic 500).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type StallServer, startStallServer } from "../../bench/stall-server.ts";
import { apiDepsFromEnv } from "../../functions/api/deps.ts";
import { createApiHandler } from "../../functions/api/handler.ts";
import { withRequestBudget } from "../../shared/request-budget.ts";
import { StoreTimeoutError } from "../../shared/store/errors.ts";
import { bodyJson, httpApiEvent, lambdaContext, RecordingLogger, RecordingMetrics } from "./support.ts";

let stall: StallServer;
let handler: ReturnType<typeof createApiHandler>;
let deps: ReturnType<typeof apiDepsFromEnv>;

before(async () => {
  stall = await startStallServer("headers", { secure: false });
  deps = apiDepsFromEnv(
    {
      AWS_ENDPOINT_URL_DYNAMODB: stall.server,
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "local",
      AWS_SECRET_ACCESS_KEY: "local",
      CLUSTERS: JSON.stringify([{ name: "eu", region: "eu-west-1" }]),
      DASHBOARD_AUTH: "off",
      // What the function keeps for answering: the store calls end this long before the Lambda's time is up.
      STATUS_DEADLINE_MARGIN_MS: "1000",
    },
    { telemetry: { logger: new RecordingLogger(), metrics: new RecordingMetrics() } },
  );
  handler = createApiHandler(deps);
});

after(async () => {
  await deps?.kube.close();
  await stall?.close();
});

test("a stalled DynamoDB is a 504 StoreTimeout by the request's deadline, on every kind of route and both mounts", async () => {
  for (const path of [
    "/clusters/eu/namespaces/shop/releases/api/history",
    "/clusters/eu/namespaces/shop/releases/api/status",
    "/clusters/eu/releases",
    "/clusters/eu/namespaces/shop/releases/api/snapshots",
    "/fleet/releases",
    "/dashboard/api/clusters/eu/namespaces/shop/releases/api/history",
  ]) {
    // Three seconds left: the store's own per-attempt timeout (20 s) would outlive it.
    const result = await handler(httpApiEvent("GET", path), lambdaContext(3_000));
    assert.equal(result.statusCode, 504, `${path}: ${result.body}`);
    const { error } = bodyJson(result) as { error: { code: string; message: string } };
    assert.equal(error.code, "StoreTimeout", path);
    assert.match(error.message, /did not answer before the request's deadline/);
  }
});

test("outside the HTTP stack, a store call made within a budget ends when the budget does", async () => {
  await assert.rejects(
    withRequestBudget(AbortSignal.timeout(200), () =>
      deps.store.getLatest({ cluster: "eu", namespace: "a", name: "b" }),
    ),
    (error) => error instanceof StoreTimeoutError,
  );
});
