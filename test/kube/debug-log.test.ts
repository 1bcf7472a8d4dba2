/**
 * DEBUG lines on the read path (issue #25 item 3): with the logger at DEBUG, one line per request on the wire
 * (path without its query, status or error, time on the wire, time waiting for a limiter slot) and one per retry;
 * at the default level (INFO) nothing is even built.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Logger as PowertoolsLogger } from "@aws-lambda-powertools/logger";
import { loggerPort } from "../../functions/_shared/telemetry.ts";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { parseManifest } from "../../shared/manifest/manifest.ts";
import type { Logger } from "../../shared/ports.ts";
import { simConnector } from "../status/sim-connector.ts";

let sim: SimulatedEks;
before(async () => {
  sim = await startSimulatedEks({ clusters: [{ name: "dbg" }], seed: 5 });
});
after(async () => {
  await sim.stop();
});

const objects = parseManifest(
  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: ns\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: ns\n",
).objects;

function recorder(enabled: boolean) {
  const lines: { message: string; attributes: Record<string, unknown> }[] = [];
  const logger: Logger = {
    debug: (message, attributes = {}) => lines.push({ message, attributes }),
    info() {},
    warn() {},
    error() {},
    debugEnabled: () => enabled,
  };
  return { lines, logger };
}

test("at DEBUG: a line per request (status, ms, limiter wait) and per retry; nothing else is logged", async () => {
  const { lines, logger } = recorder(true);
  const kube = createKubeReader({
    connector: simConnector(sim),
    logger,
    random: () => 0,
    limits: { perStatus: 1 },
    timeouts: { maxAttempts: 2 },
  });
  sim.cluster("dbg").faults.set({ errorRate: 1, errorStatus: 500 });
  try {
    await kube.read({ cluster: "dbg", namespace: "ns", objects, deadline: Date.now() + 10_000 });
  } finally {
    sim.cluster("dbg").faults.clear();
    await kube.close();
  }
  const requests = lines.filter((line) => line.message === "kube request");
  assert.equal(requests.length, 4, "two reads, two attempts each");
  for (const { attributes } of requests) {
    assert.equal(attributes.cluster, "dbg");
    assert.match(String(attributes.path), /^\/api\/v1\/namespaces\/ns\/configmaps\/[ab]$/);
    assert.equal(attributes.status, 500);
    assert.equal(typeof attributes.ms, "number");
    assert.equal(typeof attributes.limiterWaitMs, "number");
  }
  // One read at a time (perStatus 1): the second waited for the first's slot.
  assert.ok(requests.some(({ attributes }) => Number(attributes.limiterWaitMs) > 0));
  const retries = lines.filter((line) => line.message === "kube retry");
  assert.deepEqual(
    retries.map(({ attributes }) => attributes.attempt),
    [2, 2],
  );
  assert.ok(lines.every((line) => line.message.startsWith("kube ")));
});

test("at the default level the read path logs nothing", async () => {
  const { lines, logger } = recorder(false);
  const kube = createKubeReader({ connector: simConnector(sim), logger });
  try {
    await kube.read({ cluster: "dbg", namespace: "ns", objects });
  } finally {
    await kube.close();
  }
  assert.deepEqual(lines, []);
});

test("the Lambda logger port says DEBUG only when Powertools' level is DEBUG (POWERTOOLS_LOG_LEVEL)", () => {
  assert.equal(loggerPort(new PowertoolsLogger({ serviceName: "t" })).debugEnabled?.(), false);
  assert.equal(loggerPort(new PowertoolsLogger({ serviceName: "t", logLevel: "DEBUG" })).debugEnabled?.(), true);
});
