/**
 * `npm run bench -- dashboard`: the dashboard's figures (docs/bench.md, "Dashboard").
 * - the client bundle's size (gzip; goal <= 150 KB);
 * - requests to the first render of the fleet page, and the time to it with BENCH_DASHBOARD_RELEASES (10,000)
 *   releases in the store (DynamoDB Local, every release audited), in Debian's chromium through playwright-core
 *   (goal <= 1 s locally): a fresh browser context per round (nothing cached); cold is a fresh API handler
 *   (nothing held, three of them), warm a handler that answered before;
 * - the timeline query's snapshot items read for 90 days of a release that changed 50 times.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics } from "@aws-lambda-powertools/metrics";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { chromium } from "playwright-core";
import { buildDashboard } from "../dashboard/build.ts";
import { telemetryDeps } from "../functions/_shared/telemetry.ts";
import { apiSettingsFromEnv } from "../functions/api/config.ts";
import { createApiHandler } from "../functions/api/handler.ts";
import { startDynamoDbLocal } from "../local/dynamodb-local.ts";
import { startLocalServer } from "../local/server.ts";
import { recordObservation } from "../shared/audit/record.ts";
import { createKubeReader } from "../shared/kube/reader.ts";
import { openHistoryStores } from "../shared/snapshots/config.ts";
import type { Observation } from "../shared/snapshots/model.ts";
import { runIdFor } from "../shared/snapshots/model.ts";
import { ensureSnapshotsTable } from "../shared/snapshots/table-schema.ts";
import { openReleaseStore } from "../shared/store/config.ts";
import { ensureReleasesTable } from "../shared/store/table-schema.ts";
import { FleetCache, fleetReleases } from "../shared/usecases/fleet.ts";
import { releaseTimeline } from "../shared/usecases/timeline.ts";
import { benchRelease, machineLoad, median, spread, timed } from "./lib.ts";

process.env.POWERTOOLS_METRICS_DISABLED = "true";
const RELEASES = Number(process.env.BENCH_DASHBOARD_RELEASES ?? 10_000);
const ROUNDS = 7;
const COLD_FUNCTIONS = 3;
const CLUSTERS = ["prod-eu", "prod-us", "stage-eu", "stage-us"];
const out = (line = "") => process.stdout.write(`${line}\n`);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

out(`dashboard bench: ${RELEASES} releases over ${CLUSTERS.length} clusters; machine: ${machineLoad()}`);
const built = await buildDashboard(mkdtempSync(join(tmpdir(), "dashboard-bench-")));
const shipped = built.files;
const gzip = shipped.reduce((sum, f) => sum + f.gzipBytes, 0);
out(`bundle: ${shipped.map((f) => `${f.name} ${kb(f.bytes)} (${kb(f.gzipBytes)} gzip)`).join(", ")}`);
out(`bundle total: ${kb(gzip)} gzip (goal <= 150 KB)`);

const dynamo = await startDynamoDbLocal();
const location = {
  region: "us-east-1",
  endpoint: dynamo.endpoint,
  credentials: { accessKeyId: "bench", secretAccessKey: "bench" },
};
try {
  const admin = new DynamoDBClient(location);
  await ensureReleasesTable(admin, { ...location, tableName: "bench-releases" });
  await ensureSnapshotsTable(admin, { ...location, tableName: "bench-snapshots" });
  admin.destroy();
  const store = openReleaseStore({ ...location, tableName: "bench-releases" });
  const { snapshots, ...history } = openHistoryStores(
    { ...location, tableName: "bench-releases" },
    { tableName: "bench-snapshots", retentionDays: 90, auditIntervalSeconds: 300 },
  );
  const now = new Date();
  const runId = runIdFor(new Date(now.getTime() - 60_000));
  const health = (i: number): Observation["health"]["overall"] =>
    i % 20 === 0 ? "Failed" : i % 33 === 0 ? "InProgress" : i % 50 === 0 ? "Unknown" : "Current";
  const setupStart = Date.now();
  let next = 0;
  const seedOne = async () => {
    for (let i = next++; i < RELEASES; i = next++) {
      const cluster = CLUSTERS[i % CLUSTERS.length];
      const release = benchRelease(`rel-${i}`, `ns-${i % 40}`, 1);
      await store.putRevision(cluster, release);
      await recordObservation(
        snapshots,
        observation({ cluster, namespace: release.namespace, name: release.name }, runId, health(i), 1),
        90,
      );
    }
  };
  await Promise.all(Array.from({ length: 32 }, seedOne));
  out(`setup: ${RELEASES} releases stored and audited in ${((Date.now() - setupStart) / 1000).toFixed(1)} s`);

  const registry = {
    list: () => CLUSTERS.map((name) => ({ name, region: "eu-west-1" })),
    access: async () => Promise.reject(new Error("no cluster reads here")),
    invalidate: () => {},
  };
  // A fresh handler is a cold function: nothing held (FleetCache, clients' connections); the modules are loaded.
  const coldFunction = () =>
    startLocalServer({
      handler: createApiHandler({
        store,
        clusters: registry,
        kube: createKubeReader({ connector: registry }),
        clock: { now: () => new Date() },
        ...telemetryDeps(new Logger({ logLevel: "ERROR" }), new Metrics({ namespace: "bench" })),
        settings: apiSettingsFromEnv({}),
        historyStores: { snapshots, ...history },
        fleetCache: new FleetCache(),
        dashboard: {
          auth: "off",
          groupsClaim: "groups",
          access: { groups: [] },
          assetsDir: built.dir,
          connectOrigins: [],
        },
      }),
      port: 0,
    });
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox"],
    headless: true,
  });
  const render = async (url: string) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    let requests = 0;
    let fleetRequests = 0;
    let rendered = false;
    page.on("request", (request) => {
      if (rendered) return;
      // The counts' request follows the rows' at once (it may start before the poll sees the row): not counted.
      if (request.url().includes("/fleet/releases") && fleetRequests++ > 0) return;
      requests++;
    });
    await page.goto(`${url}/dashboard/`);
    await page
      .locator("table.fleet tbody tr")
      .first()
      .waitFor({ timeout: 120_000 })
      .catch(async (error) => {
        throw new Error(`the fleet did not render: ${(await page.locator("main").allInnerTexts()).join(" ")}`, {
          cause: error,
        });
      });
    rendered = true;
    const ms = (await page.evaluate("performance.now()")) as number;
    const fcp = (await page.evaluate(
      "(performance.getEntriesByName('first-contentful-paint')[0] || {startTime: NaN}).startTime",
    )) as number;
    const apiMs = (await page.evaluate(
      "(performance.getEntriesByType('resource').find((e) => e.name.includes('/fleet/releases')) || {duration: NaN}).duration",
    )) as number;
    // The counts per health come after the rows (a second request when the rows came without them).
    await page.locator("nav.counts b").first().filter({ hasNotText: "…" }).waitFor({ timeout: 120_000 });
    const countsMs = (await page.evaluate("performance.now()")) as number;
    await context.close();
    return { ms, fcp, requests, apiMs, countsMs };
  };
  let server: Awaited<ReturnType<typeof coldFunction>> | undefined;
  try {
    // COLD_FUNCTIONS cold functions (a fresh browser context each), then ROUNDS - 1 warm rounds on the last.
    const cold: Awaited<ReturnType<typeof render>>[] = [];
    for (let i = 0; i < COLD_FUNCTIONS; i++) {
      await server?.close();
      server = await coldFunction();
      cold.push(await render(server.url));
    }
    const warm: Awaited<ReturnType<typeof render>>[] = [];
    for (let round = 1; round < ROUNDS; round++) warm.push(await render(server!.url));
    out(
      `requests to the fleet's first render: ${cold[0].requests} (page, script, stylesheet, config.json, /clusters, /fleet/releases), then /fleet/releases with the counts`,
    );
    const ms = (rounds: typeof cold, key: "ms" | "apiMs" | "fcp" | "countsMs") =>
      median(rounds.map((r) => r[key])).toFixed(0);
    out(
      `fleet first render with ${RELEASES} releases: cold median ${ms(cold, "ms")} ms (${spread(cold.map((r) => r.ms))}, ${COLD_FUNCTIONS} fresh functions; its /fleet/releases ${ms(cold, "apiMs")} ms, counts shown at ${ms(cold, "countsMs")} ms); warm median ${ms(warm, "ms")} ms (${spread(warm.map((r) => r.ms))}), /fleet/releases ${ms(warm, "apiMs")} ms, first contentful paint ${ms(warm, "fcp")} ms, counts shown at ${ms(warm, "countsMs")} ms (goal <= 1000 ms)`,
    );
  } finally {
    await browser.close();
    await server?.close();
  }

  // Where the API's time goes: the first page from the index (what a cold function answers), the join (cold:
  // no cache; a text search, a deep page), a page of the held join.
  const fleetDeps = { store, snapshots, clusters: registry, clock: { now: () => new Date() } };
  const indexPages = [];
  for (let i = 0; i < 5; i++) indexPages.push((await timed(() => fleetReleases(fleetDeps, { counts: false }))).ms);
  const indexFailed = await timed(() => fleetReleases(fleetDeps, { health: "Failed", counts: false }));
  const coldJoin = await timed(() =>
    fleetReleases({ ...fleetDeps, cache: new FleetCache() }, {}, { drift: false, join: true }),
  );
  const cache = new FleetCache();
  await fleetReleases({ ...fleetDeps, cache }, {}, { join: true });
  const warmPage = await timed(() => fleetReleases({ ...fleetDeps, cache }, { health: "Failed" }));
  out(
    `fleet API with ${RELEASES} releases: the first page of 50 from the FLEET index (rows, no counts) median ${median(indexPages).toFixed(0)} ms (${spread(indexPages)}), the Failed chip's ${indexFailed.ms.toFixed(0)} ms; joining the store's listing and the FLEET index ${coldJoin.ms.toFixed(0)} ms (cold, ${coldJoin.value.total} rows); a page of 50 of the held join ${warmPage.ms.toFixed(0)} ms`,
  );

  // 90 days of a release that changed 50 times: 51 snapshots, each a stretch of unchanged health.
  const busy = { cluster: "prod-eu", namespace: "busy", name: "flappy" };
  const start = now.getTime() - 89 * 86_400_000;
  for (let i = 0; i <= 50; i++) {
    const at = new Date(start + i * 1.74 * 86_400_000);
    await recordObservation(
      snapshots,
      observation(busy, runIdFor(at), i % 2 ? "Failed" : "Current", 1 + Math.floor(i / 5)),
      90,
    );
  }
  const timeline = await releaseTimeline({ snapshots, clusters: registry, clock: { now: () => new Date() } }, busy, {
    since: "90d",
  });
  out(
    `timeline of 90 days, 50 changes: ${timeline.itemsRead} snapshot items read for ${timeline.stripes.length} stripes and ${timeline.events.length} events (a snapshot per 5-minute audit would be ${90 * 288} items)`,
  );
} finally {
  await dynamo.stop();
}

function observation(
  release: { cluster: string; namespace: string; name: string },
  run: string,
  overall: Observation["health"]["overall"],
  revision: number,
): Observation {
  const ok = overall === "Current";
  const observedAt = new Date(
    Date.UTC(
      Number(run.slice(0, 4)),
      Number(run.slice(4, 6)) - 1,
      Number(run.slice(6, 8)),
      Number(run.slice(9, 11)),
      Number(run.slice(11, 13)),
      Number(run.slice(13, 15)),
    ),
  ).toISOString();
  return {
    release,
    runId: run,
    observedAt,
    revision,
    releaseStatus: "deployed",
    health: { overall, message: ok ? "all 4 resources Current" : `1 of 4 resources not Current: 1 ${overall}` },
    resources: [
      {
        apiVersion: "apps/v1",
        kind: "Deployment",
        name: "app-0",
        namespace: release.namespace,
        health: overall,
        message: "",
        cells: { READY: ok ? "1/1" : "0/1" },
      },
    ],
    missing: [],
    counters: { resources: 4, missing: 0, requests: 4, retries: 0, durationMs: 20 },
    text: `NAME: ${release.name}\nHEALTH: ${overall}\n`,
  };
}
