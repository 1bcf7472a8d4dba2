/**
 * Issue #38 item 2: hostile values of every query parameter (and every path parameter) of every route, on both
 * mounts (the IAM one and the dashboard's /dashboard/api), never answer 5xx and never leave a rejection or an
 * exception unhandled. The routes and their query parameters come from openapi.json (a test holds it equal to the
 * router), so a new route or parameter is covered without touching this file. Real parts: the simulated EKS with
 * the demo releases, the memory stores with audits of shop/api 20, 15 and 10 minutes ago.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setImmediate as tick } from "node:timers/promises";
import { apiDepsFromEnv } from "../../functions/api/deps.ts";
import { createApiHandler } from "../../functions/api/handler.ts";
import openapi from "../../functions/api/openapi.json" with { type: "json" };
import { DASHBOARD_API_PREFIX } from "../../functions/api/viewer.ts";
import { DEMO_CLUSTERS } from "../../local/demo/releases.ts";
import { seedDemo } from "../../local/demo/seed.ts";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { memoryHistoryStores } from "../../shared/snapshots/history-stores.ts";
import { runIdFor } from "../../shared/snapshots/model.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { MemorySyncStateStore } from "../../shared/store/sync-state-memory.ts";
import { observe, recordAudited } from "../history/fixtures.ts";
import { httpApiEvent, lambdaContext, RecordingLogger, RecordingMetrics } from "./support.ts";

/** Values a caller may send: empty, blanks, signs, overflow, NUL, traversal, an impossible date, long, unicode. */
const HOSTILE = [
  "",
  " ",
  "-",
  "-1",
  "0",
  "1.5",
  "0x10",
  "1e309",
  "9".repeat(40),
  "NaN",
  "true",
  "null",
  "abc",
  "%",
  "\u0000",
  "../..",
  "a,b",
  "-99999999d",
  "2026-02-30T00:00:00Z",
  "2999-01-01T00:00:00Z",
  "💥",
  "x".repeat(4000),
];

/**
 * A plausible value of each parameter, set beside a hostile one so a request gets past the first check: the
 * shape of the crash (`at` valid but covered by no snapshot, `against` unparsable) needs both.
 */
const PLAUSIBLE: Record<string, string> = {
  at: "-30d",
  against: "-1m",
  since: "-1h",
  until: "-1m",
  revision: "1",
  output: "json",
  drift: "false",
  max: "2",
  limit: "2",
  offset: "1",
  status: "deployed",
  health: "Failed",
  cluster: "demo-eu",
  namespace: "shop",
};

const PATH_VALUES: Record<string, string> = {
  cluster: "demo-eu",
  namespace: "shop",
  name: "api",
  revision: "1",
  runId: "",
  id: "",
  "proxy+": "index.html",
};

interface Operation {
  method: string;
  path: string;
  query: string[];
}

const parameters = (openapi.components as { parameters: Record<string, { name: string; in: string }> }).parameters;
const operations: Operation[] = Object.entries(
  openapi.paths as Record<string, Record<string, { parameters?: { $ref?: string; name?: string; in?: string }[] }>>,
).flatMap(([path, ops]) =>
  Object.entries(ops).map(([method, op]) => ({
    method: method.toUpperCase(),
    path,
    query: (op.parameters ?? [])
      .map((p) => (p.$ref ? parameters[p.$ref.split("/").at(-1)!] : (p as { name: string; in: string })))
      .filter((p) => p.in === "query")
      .map((p) => p.name),
  })),
);

let sim: SimulatedEks | undefined;
let handler: ReturnType<typeof createApiHandler>;
let close: () => Promise<void>;
const audited = { cluster: "demo-eu", namespace: "shop", name: "api" };

const fired: string[] = [];
const onRejection = (reason: unknown) => fired.push(`unhandledRejection: ${String(reason)}`);
const onException = (error: unknown) => fired.push(`uncaughtException: ${String(error)}`);

before(async () => {
  process.on("unhandledRejection", onRejection);
  process.on("uncaughtException", onException);
  sim = await startSimulatedEks({ clusters: DEMO_CLUSTERS.map((c) => ({ name: c.name, region: c.region })) });
  const store = new MemoryReleaseStore();
  const history = memoryHistoryStores();
  const now = Date.now();
  const runIds = [20, 15, 10].map((minutes) => runIdFor(new Date(Math.floor((now - minutes * 60_000) / 1000) * 1000)));
  for (const runId of runIds) await recordAudited(history, observe(audited, runId));
  PATH_VALUES.runId = runIds[0];
  PATH_VALUES.id = `demo-eu.shop.api@${runIds[1]}`;
  // The EKS connector signs with the SDK's default credentials: the simulator's keys, for this process.
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: sim.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: sim.credentials.secretAccessKey,
  });
  const deps = apiDepsFromEnv(
    {
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: sim.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: sim.credentials.secretAccessKey,
      CLUSTERS: JSON.stringify(sim.registryEntries()),
      DASHBOARD_AUTH: "off",
    },
    {
      store,
      historyStores: history,
      syncState: new MemorySyncStateStore(),
      telemetry: { logger: new RecordingLogger(), metrics: new RecordingMetrics() },
    },
  );
  await seedDemo(store, sim);
  handler = createApiHandler(deps);
  close = () => deps.kube.close();
});

after(async () => {
  await close?.();
  await sim?.stop();
  process.off("unhandledRejection", onRejection);
  process.off("uncaughtException", onException);
});

function pathOf(template: string, hostile?: { name: string; value: string }): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(hostile?.name === name ? hostile.value : PATH_VALUES[name]),
  );
}

function queryOf(values: Record<string, string>): string {
  const pairs = Object.entries(values).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
  return pairs.length > 0 ? `?${pairs.join("&")}` : "";
}

/** Every request of one operation: each hostile value of each query parameter, alone and beside each other one. */
function requestsOf(operation: Operation): string[] {
  const targets: string[] = [];
  const path = pathOf(operation.path);
  for (const name of operation.query) {
    for (const value of HOSTILE) {
      targets.push(`${path}${queryOf({ [name]: value })}`);
      for (const other of operation.query) {
        if (other === name) continue;
        targets.push(`${path}${queryOf({ [other]: PLAUSIBLE[other] ?? "1", [name]: value })}`);
      }
    }
  }
  for (const [, name] of operation.path.matchAll(/\{([^}]+)\}/g)) {
    for (const value of HOSTILE) targets.push(pathOf(operation.path, { name, value }) + queryOf({}));
  }
  return targets;
}

async function sendAll(mount: "iam" | "dashboard"): Promise<string[]> {
  const failures: string[] = [];
  let sent = 0;
  for (const operation of operations) {
    if (mount === "dashboard" && operation.method !== "GET") continue;
    for (const target of requestsOf(operation)) {
      const url = mount === "dashboard" ? `${DASHBOARD_API_PREFIX}${target}` : target;
      const options = operation.method === "POST" ? { headers: { "content-type": "application/json" } } : {};
      const result = await handler(httpApiEvent(operation.method, url, options), lambdaContext());
      sent++;
      const status = result.statusCode ?? 200;
      if (status >= 500)
        failures.push(`${operation.method} ${url.slice(0, 200)} -> ${status} ${result.body?.slice(0, 200)}`);
    }
  }
  // A rejection left unhandled is reported after the microtasks of its turn: let a few turns pass.
  for (let i = 0; i < 5; i++) await tick();
  assert.ok(sent > 1000, `${sent} requests sent`);
  return failures;
}

test("every hostile query value on the IAM mount: a 2xx or 4xx, never a 5xx, and nothing unhandled", async () => {
  const failures = await sendAll("iam");
  assert.deepEqual(failures, []);
  assert.deepEqual(fired, []);
});

test("the same on the dashboard's /dashboard/api mount", async () => {
  const failures = await sendAll("dashboard");
  assert.deepEqual(failures, []);
  assert.deepEqual(fired, []);
});

test("the request that killed the process: at covered by no snapshot, against unparsable, is a 400 on both mounts", async () => {
  for (const prefix of ["", DASHBOARD_API_PREFIX]) {
    const result = await handler(
      httpApiEvent("GET", `${prefix}/clusters/demo-eu/namespaces/shop/releases/api/status?at=-30d&against=abc`),
      lambdaContext(),
    );
    assert.equal(result.statusCode, 400, result.body);
    assert.match(JSON.parse(result.body ?? "{}").error.message, /^against "abc" is not a time/);
  }
  for (let i = 0; i < 5; i++) await tick();
  assert.deepEqual(fired, []);
});
