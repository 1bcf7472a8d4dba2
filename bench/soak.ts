/**
 * `npm run soak`: does the product hold up when things go wrong? Bounded in time
 * (about 3 minutes with the defaults on an idle 2-core machine; a watchdog ends it at 9). Nothing is
 * asserted: figures are printed for docs/reliability.md.
 *
 *   1. faults    N statuses of a 40-resource release through the API handler (in process, a Lambda's
 *                budget each, 4 at a time) while the simulated EKS answers 20% of requests with
 *                500/503/429 and resets 5% of connections: every answer inside the budget? how many
 *                complete? The handler's heap after GC before/after (a warm Lambda stays flat).
 *   2. import    objects/s of the import use case at concurrency 1 and 16 (DynamoDB Local), then a List of
 *                SOAK_IMPORT_OBJECTS release Secrets POSTed to the API handler with a 29 s Lambda budget:
 *                the answer's time and status (207 + "re-run to continue" when it ran out), then the re-run.
 *   3. clients   `npm start` as a user runs it (child process), C clients in closed loops for R rounds of
 *                S seconds: 5xx count, p50/p99, the server's RSS after each round and after idling.
 *   4. malformed the malformed-request table (bench/malformed-requests.ts) against that server: how many
 *                tried, how many answered 4xx with the {error: {code, message}} shape.
 *
 *   5. silent    a status against an API server silent at each stage (DNS, connect, TLS, headers, body), over
 *                HTTP/2, HTTP/1.1 and http:// (bench/soak-attacks.ts), and
 *   6. run times a 2031 planner time and a 2099 queued run id, and
 *   7. chat      AWS's error text in Slack/Teams answers (issue #25).
 *
 * SOAK_STATUSES (default 60), SOAK_BUDGET_MS (8000), SOAK_CLIENTS (200), SOAK_ROUNDS (3), SOAK_SECONDS (12),
 * SOAK_IMPORT_OBJECTS (8000: 5.3 MB, under the 6 MB body limit).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { apiDepsFromEnv } from "../functions/api/deps.ts";
import { createApiHandler } from "../functions/api/handler.ts";
import { startDynamoDbLocal } from "../local/dynamodb-local.ts";
import { lambdaContext } from "../local/server.ts";
import { startSimulatedEksInWorker } from "../local/sim/worker.ts";
import { encodeHelmSecret } from "../shared/release/helm-codec.ts";
import type { Release } from "../shared/release/model.ts";
import { openReleaseStore, storeConfigFromEnv } from "../shared/store/config.ts";
import type { ReleaseStore } from "../shared/store/release-store.ts";
import { ensureReleasesTable } from "../shared/store/table-schema.ts";
import { importReleases } from "../shared/usecases/import.ts";
import { benchRelease, collector, machineLoad } from "./lib.ts";
import { isShapedClientError, malformedCases, sendRaw } from "./malformed-requests.ts";
import { chatLeaks, futureRunTimes, silentServers } from "./soak-attacks.ts";
import { apiEvent, count5xx, loadClients, percentile, sleep, startLocalStack } from "./soak-lib.ts";

const int = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  return Number.isInteger(value) && value > 0 ? value : fallback;
};
const STATUSES = int("SOAK_STATUSES", 60);
const BUDGET_MS = int("SOAK_BUDGET_MS", 8_000);
const CLIENTS = int("SOAK_CLIENTS", 200);
const ROUNDS = int("SOAK_ROUNDS", 3);
const SECONDS = int("SOAK_SECONDS", 12);
const IMPORT_OBJECTS = int("SOAK_IMPORT_OBJECTS", 8_000);
const CLUSTER = "soak";

const out = (line = "") => process.stdout.write(`${line}\n`);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

const watchdog = setTimeout(() => {
  process.stderr.write("soak: not finished after 9 minutes, giving up\n");
  process.exit(2);
}, 540_000);
watchdog.unref();

async function faults(): Promise<void> {
  const [sim, dynamo] = await Promise.all([
    startSimulatedEksInWorker({ clusters: [{ name: CLUSTER }], seed: 14 }),
    startDynamoDbLocal(),
  ]);
  let kube: { close(): Promise<void> } | undefined;
  try {
    const env: NodeJS.ProcessEnv = {
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_REGION: "us-east-1",
      RELEASES_TABLE: "soak-releases",
      CLUSTERS: JSON.stringify(sim.registryEntries()),
      AWS_ACCESS_KEY_ID: sim.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: sim.credentials.secretAccessKey,
      POWERTOOLS_LOG_LEVEL: "SILENT",
    };
    // This process only, as npm start does: the handler reaches the local engines as it would reach AWS.
    Object.assign(process.env, env, { POWERTOOLS_METRICS_DISABLED: "true" });
    const storeConfig = storeConfigFromEnv(process.env);
    const admin = new DynamoDBClient({ region: storeConfig.region, endpoint: storeConfig.endpoint });
    await ensureReleasesTable(admin, storeConfig);
    admin.destroy();
    const release = benchRelease("soak", "soak", 10);
    await sim.cluster(CLUSTER).materialize(release.manifest ?? "", { namespace: "soak" });
    await openReleaseStore(storeConfig).putRevision(CLUSTER, release);
    const apiDeps = apiDepsFromEnv(process.env);
    kube = apiDeps.kube;
    const handler = createApiHandler(apiDeps);
    const path = `/clusters/${CLUSTER}/namespaces/soak/releases/soak/status`;
    const call = async () => {
      const started = performance.now();
      const result = await handler(apiEvent(path), lambdaContext(BUDGET_MS));
      const ms = performance.now() - started;
      const body = JSON.parse(result.body ?? "{}") as { complete?: boolean; missing?: { reason?: string }[] };
      const reasons = [...new Set((body.missing ?? []).map((m) => m.reason ?? "?"))];
      return { ms, status: result.statusCode ?? 0, complete: body.complete === true, reasons };
    };
    // Warm: discovery, token, pools (a warm Lambda), then the heap is measured after GC.
    for (let i = 0; i < 3; i++) await call();
    const gc = collector();
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const cluster = sim.cluster(CLUSTER);
    const answers: Awaited<ReturnType<typeof call>>[] = [];
    const phases = [
      { errorStatus: 500 as const },
      { errorStatus: 503 as const, retryAfterSeconds: 1 },
      { errorStatus: 429 as const, retryAfterSeconds: 1 },
    ];
    await cluster.resetStats();
    for (const [i, phase] of phases.entries()) {
      await cluster.faults.set({ errorRate: 0.2, resetRate: 0.05, ...phase });
      const share = Math.floor(STATUSES / phases.length) + (i < STATUSES % phases.length ? 1 : 0);
      let left = share;
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (left-- > 0) answers.push(await call());
        }),
      );
    }
    await cluster.faults.clear();
    const stats = await cluster.stats();
    gc();
    const heapAfter = process.memoryUsage().heapUsed;
    const times = answers.map((a) => a.ms);
    const injected = stats.log.filter((e) => e.status === 0 || e.status >= 429).length;
    out(`## 1. faults: ${answers.length} statuses, 20% 500/503/429 + 5% resets, budget ${BUDGET_MS} ms each`);
    out(`  sim requests           ${stats.total} (${injected} of the logged ${stats.log.length} answered by a fault)`);
    out(
      `  answered in budget     ${answers.filter((a) => a.ms <= BUDGET_MS).length}/${answers.length} (max ${Math.max(...times).toFixed(0)} ms, p50 ${percentile(times, 50).toFixed(0)}, p99 ${percentile(times, 99).toFixed(0)})`,
    );
    out(`  HTTP statuses          ${JSON.stringify(countBy(answers.map((a) => a.status)))}`);
    const incomplete = answers.filter((a) => !a.complete).flatMap((a) => a.reasons);
    out(
      `  complete reports       ${answers.filter((a) => a.complete).length}/${answers.length} (the others are 200s naming what they could not read; reasons: ${JSON.stringify(countBy(incomplete))})`,
    );
    out(`  handler heap after GC  ${mb(heapBefore)} -> ${mb(heapAfter)}`);
    await imports(handler, openReleaseStore(storeConfig));
  } finally {
    await kube?.close();
    await sim.stop();
    await dynamo.stop();
  }
}

async function clientsAndMalformed(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "soak-data-"));
  const stack = await startLocalStack(dataDir);
  try {
    const shop = `${stack.url}/clusters/demo-eu/namespaces/shop/releases`;
    const urls = [
      `${shop}/web/status`,
      `${shop}/api/status?output=json`,
      `${stack.url}/clusters/demo-eu/releases`,
      `${shop}/web/history`,
      `${stack.url}/clusters/demo-us/namespaces/observability/releases/metrics/status`,
    ];
    await loadClients(urls, 8, 3);
    await sleep(2_000);
    const rssStart = stack.rssMb();
    out();
    out(`## 3. clients: ${CLIENTS} concurrent clients against npm start, ${ROUNDS} rounds of ${SECONDS} s`);
    out(`  RSS after warm-up      ${rssStart.toFixed(0)} MB`);
    for (let round = 1; round <= ROUNDS; round++) {
      const result = await loadClients(urls, CLIENTS, SECONDS);
      const l = result.latenciesMs;
      out(
        `  round ${round}: ${result.requests} requests (${(result.requests / SECONDS).toFixed(0)}/s), 5xx ${count5xx(result)}, no answer ${result.errors}, p50 ${percentile(l, 50).toFixed(0)} ms, p99 ${percentile(l, 99).toFixed(0)} ms, RSS ${stack.rssMb().toFixed(0)} MB  ${JSON.stringify(result.byStatus)}`,
      );
      for (const [status, body] of Object.entries(result.samples)) out(`    a ${status}: ${body}`);
    }
    await sleep(10_000);
    out(`  RSS after 10 s idle    ${stack.rssMb().toFixed(0)} MB`);

    const cases = malformedCases();
    const failures: string[] = [];
    let shaped = 0;
    for (const { name, request, status } of cases) {
      try {
        const answer = await sendRaw(Number(new URL(stack.url).port), request());
        if (isShapedClientError(answer) && (!status || answer.status === status)) shaped++;
        else failures.push(`${name}: ${answer.status} ${answer.body.slice(0, 80)}`);
      } catch (error) {
        failures.push(`${name}: ${(error as Error).message}`);
      }
    }
    out();
    out(`## 4. malformed requests: ${cases.length} tried, ${shaped} answered 4xx with {error: {code, message}}`);
    for (const failure of failures) out(`  NOT OK ${failure}`);
  } finally {
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function imports(handler: ReturnType<typeof createApiHandler>, store: ReleaseStore): Promise<void> {
  // A small release per Secret (about 670 bytes on the wire; the issue measured 10,000 in 5.7 MB).
  const slim = (name: string): Release => ({
    name,
    namespace: "soak",
    version: 1,
    info: { status: "deployed", last_deployed: "2026-12-02T14:40:15Z", description: "Install complete" },
    chart: { metadata: { name: "app", version: "1.0.0" } },
    manifest: `---\n# Source: app/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n`,
  });
  const list = (prefix: string, n: number) => ({
    apiVersion: "v1",
    kind: "List",
    items: Array.from({ length: n }, (_, i) => encodeHelmSecret(slim(`${prefix}-${i}`))),
  });
  const rate = async (concurrency: number, prefix: string) => {
    const started = performance.now();
    const summary = await importReleases(
      { store, clusters: "any" },
      { cluster: CLUSTER, document: list(prefix, 64), concurrency },
    );
    return (summary.imported / (performance.now() - started)) * 1000;
  };
  await rate(16, "warm"); // DynamoDB Local's JIT
  const rates = { 1: [] as number[], 16: [] as number[] };
  for (let round = 0; round < 2; round++) {
    rates[1].push(await rate(1, `seq${round}`));
    rates[16].push(await rate(16, `par${round}`));
  }
  const avg = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  out();
  out("## 2. import");
  out(
    `  objects/s              concurrency 1: ${avg(rates[1]).toFixed(0)}/s, concurrency 16: ${avg(rates[16]).toFixed(0)}/s (${(avg(rates[16]) / avg(rates[1])).toFixed(1)}x; DynamoDB Local, ~4 calls per object)`,
  );
  const body = JSON.stringify(list("big", IMPORT_OBJECTS));
  const path = `/clusters/${CLUSTER}/releases/import`;
  for (const attempt of ["first", "re-run"]) {
    const event = { ...apiEvent(path), body, rawQueryString: "", queryStringParameters: undefined };
    event.requestContext.http.method = "POST";
    event.headers = { "content-type": "application/json", host: "soak" };
    const started = performance.now();
    const result = await handler(event, lambdaContext(29_000));
    const ms = performance.now() - started;
    const summary = JSON.parse(result.body ?? "{}") as Record<string, unknown>;
    out(
      `  ${attempt.padEnd(6)} POST of ${IMPORT_OBJECTS} Secrets (${mb(Buffer.byteLength(body))}, 29 s budget): ${result.statusCode} in ${(ms / 1000).toFixed(1)} s, imported ${summary.imported}, unchanged ${summary.unchanged}, not started ${summary.notStarted}${summary.hint ? ` ("${String(summary.hint).split(";")[1]?.trim()}")` : ""}`,
    );
  }
}

function countBy(values: (number | string)[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}

async function main() {
  const started = performance.now();
  out(`# npm run soak (${new Date().toISOString()}, load ${machineLoad()})`);
  await faults();
  await clientsAndMalformed();
  await silentServers(out);
  await futureRunTimes(out);
  await chatLeaks(out);
  out();
  out(`done in ${((performance.now() - started) / 1000).toFixed(0)} s (load ${machineLoad()})`);
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`soak: ${(error as Error).stack ?? error}\n`);
    process.exit(1);
  },
);
