/** POST and GET /clusters/{cluster}/sync on the simulated EKS with the in-memory stores: 200, 207, 409, 404, 400. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { telemetryDeps } from "../../functions/_shared/telemetry.ts";
import { apiSettingsFromEnv } from "../../functions/api/config.ts";
import { createApiHandler } from "../../functions/api/handler.ts";
import type { ApiDeps } from "../../functions/api/types.ts";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { encodeHelmSecret } from "../../shared/release/helm-codec.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { MemorySyncStateStore } from "../../shared/store/sync-state-memory.ts";
import { MemoryAttributionStore } from "../../shared/who/memory-attribution-store.ts";
import { simConnector } from "../status/sim-connector.ts";
import { makeRelease } from "../store/fixtures.ts";
import { STORE_CLOCK } from "../who/support.ts";
import { bodyJson, httpApiEvent, lambdaContext, RecordingLogger, RecordingMetrics } from "./support.ts";

let sim: SimulatedEks;
let deps: ApiDeps;
let handler: ReturnType<typeof createApiHandler>;
const attributions = new MemoryAttributionStore(STORE_CLOCK);

before(async () => {
  sim = await startSimulatedEks({ clusters: [{ name: "api-sync" }, { name: "off" }] });
  sim
    .cluster("api-sync")
    .apply([
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } },
      ...Array.from({ length: 6 }, (_, i) => encodeHelmSecret(makeRelease({ name: `r${i}`, namespace: "shop" }))),
    ]);
  const connector = simConnector(sim);
  deps = {
    store: new MemoryReleaseStore(),
    syncState: new MemorySyncStateStore(),
    syncPolicy: (cluster) => (cluster === "off" ? { enabled: false } : undefined),
    clusters: connector,
    kube: createKubeReader({ connector }),
    clock: { now: () => new Date() },
    ...telemetryDeps(new RecordingLogger(), new RecordingMetrics()),
    settings: apiSettingsFromEnv({}),
    attributions,
  };
  handler = createApiHandler(deps);
});
after(async () => {
  await deps?.kube.close();
  await sim?.stop();
});

const post = (target: string, remainingMs?: number) =>
  handler(httpApiEvent("POST", target), lambdaContext(remainingMs));
const get = (target: string) => handler(httpApiEvent("GET", target), lambdaContext());

test("GET before any run, POST syncs, GET shows the last run", async () => {
  const before = await get("/clusters/api-sync/sync");
  assert.equal(before.statusCode, 200);
  assert.deepEqual(bodyJson(before), {
    cluster: "api-sync",
    enabled: true,
    lastRun: null,
    lastCompleteAt: null,
    resumable: false,
  });
  const run = await post("/clusters/api-sync/sync?namespace=shop");
  assert.equal(run.statusCode, 200);
  const summary = bodyJson(run) as { imported: number; complete: boolean; namespaces: string[] };
  assert.deepEqual([summary.imported, summary.complete, summary.namespaces], [6, true, ["shop"]]);
  const after = bodyJson(await get("/clusters/api-sync/sync")) as {
    lastRun: { summary: { imported: number } };
    lastCompleteAt: string;
  };
  assert.equal(after.lastRun.summary.imported, 6);
  assert.ok(Date.parse(after.lastCompleteAt) > 0);
  // Its new revisions are enqueued for attribution like the scheduled sync's (docs/who.md).
  const kept = await attributions.forRelease({ cluster: "api-sync", namespace: "shop", name: "r0" });
  assert.deepEqual(
    kept.map((a) => [a.key, a.state]),
    [["rev#shop#r0#1", "pending"]],
  );
});

test("207 when the Lambda's time runs out, 409 while another run holds the lease", async () => {
  sim
    .cluster("api-sync")
    .apply(Array.from({ length: 4 }, (_, i) => encodeHelmSecret(makeRelease({ name: `late${i}`, namespace: "shop" }))));
  const cut = await post("/clusters/api-sync/sync", 2_100);
  assert.equal(cut.statusCode, 207);
  assert.match((bodyJson(cut) as { hint: string }).hint, /next run continues/);
  await deps.syncState!.acquireLease("api-sync", "someone-else", Date.now() + 60_000, Date.now());
  const busy = await post("/clusters/api-sync/sync");
  assert.equal(busy.statusCode, 409);
  assert.match((bodyJson(busy) as { error: { message: string } }).error.message, /already running/);
  await deps.syncState!.releaseLease("api-sync", "someone-else");
});

test("bad input: unknown cluster 404, sync: false 400, bad namespace 400, unknown query 400", async () => {
  assert.equal((await post("/clusters/nope/sync")).statusCode, 404);
  const off = await post("/clusters/off/sync");
  assert.equal(off.statusCode, 400);
  assert.match((bodyJson(off) as { error: { message: string } }).error.message, /sync: false/);
  assert.equal((await post("/clusters/api-sync/sync?namespace=Bad_NS")).statusCode, 400);
  assert.equal((await post("/clusters/api-sync/sync?namespace=a,,b")).statusCode, 400);
  assert.equal((await post("/clusters/api-sync/sync?force=1")).statusCode, 400);
});
