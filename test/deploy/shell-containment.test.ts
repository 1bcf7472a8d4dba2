/**
 * The Lambda shell contains what it did not expect (issue #38 item 2): a failure that escapes even the error
 * mapping is a logged 500 with the request id, never a rejected invocation; a rejection nothing awaited is logged
 * without ending the execution environment (Lambda's runtime exits on one); every answer carries nosniff.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { httpHandler } from "../../functions/_shared/http/handler.ts";
import { defineRoute } from "../../functions/_shared/http/route.ts";
import { bodyJson, httpApiEvent, lambdaContext, RecordingLogger, RecordingMetrics } from "../api/support.ts";
import { startNode } from "../support/cli.ts";

/** A thrown value that fails whoever looks at it: the error mapping itself then throws. */
const poisoned = new Proxy(
  {},
  {
    get() {
      throw new Error("poisoned");
    },
    getPrototypeOf() {
      throw new Error("poisoned");
    },
  },
);

function handlerWith(route: () => Promise<never>) {
  const logger = new RecordingLogger();
  const handler = httpHandler(
    { logger, metrics: new RecordingMetrics() },
    {
      routes: [
        defineRoute("GET", "/ok", async () => ({ statusCode: 200, body: "ok" })),
        defineRoute("GET", "/fails", route),
      ],
    },
  );
  return { handler, logger };
}

test("a failure the error mapping cannot map is a logged 500 with the request id, not a rejected invocation", async () => {
  const { handler, logger } = handlerWith(async () => {
    throw poisoned;
  });
  const event = httpApiEvent("GET", "/fails");
  const result = await handler(event, lambdaContext());
  assert.equal(result.statusCode, 500);
  const body = bodyJson(result) as { error: { code: string; requestId: string } };
  assert.equal(body.error.code, "InternalError");
  assert.equal(body.error.requestId, event.requestContext.requestId);
  assert.equal(result.headers?.["x-content-type-options"], "nosniff");
  assert.ok(logger.lines.some((line) => line.level === "ERROR" && /outside the error mapping/.test(line.message)));
});

test("every answer carries X-Content-Type-Options: nosniff (200, 404, 405, 500)", async () => {
  const { handler } = handlerWith(async () => {
    throw new Error("a bug");
  });
  for (const [method, path, status] of [
    ["GET", "/ok", 200],
    ["GET", "/nowhere", 404],
    ["POST", "/ok", 405],
    ["GET", "/fails", 500],
  ] as const) {
    const result = await handler(httpApiEvent(method, path), lambdaContext());
    assert.equal(result.statusCode, status, path);
    assert.equal(result.headers?.["x-content-type-options"], "nosniff", `${method} ${path}`);
  }
});

test("a rejection nothing awaited is logged, and the environment lives on under Lambda's runtime", async () => {
  const script = fileURLToPath(new URL("./fixtures/stray-rejection-lambda.ts", import.meta.url));
  const run = startNode(script, [], {
    env: { ...process.env, AWS_LAMBDA_RUNTIME_API: "127.0.0.1:9001" },
    timeoutMs: 30_000,
  });
  const code = await run.exited;
  const output = run.output.stdout + run.output.stderr;
  assert.equal(code, 0, output);
  assert.equal(run.output.stdout.match(/^answer 200$/gm)?.length, 2, output);
  assert.equal(output.match(/unhandled rejection contained.*a read nobody awaited/g)?.length, 2, output);
  assert.doesNotMatch(output, /exiting 128/);
  assert.match(run.output.stdout, /alive\n$/);
});

test("a route still running when the Lambda's time is up is a 504, not a generic 500", async () => {
  const { handler } = handlerWith(() => new Promise<never>(() => {}));
  const result = await handler(httpApiEvent("GET", "/fails"), lambdaContext(50));
  assert.equal(result.statusCode, 504);
  assert.equal((bodyJson(result) as { error: { code: string } }).error.code, "Timeout");
  assert.equal(result.headers?.["x-content-type-options"], "nosniff");
});
