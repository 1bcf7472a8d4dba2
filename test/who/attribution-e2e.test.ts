/**
 * Who changed it, end to end on the simulated EKS with its CloudWatch Logs (60 s delivery lag, an injected clock):
 * real helm as identity A upgrades web, real kubectl as identity B patches web's ConfigMap; the sync worker Lambda
 * handler syncs (enqueueing the new revisions) and runs the attribution worker with the real CloudWatch lookup; the
 * audit's release step enqueues the drift write. Measured: the time from each write to its attribution (in lags,
 * with a run every minute), queries per 100 new revisions, lookups repeated.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { auditRuntimeFromEnv } from "../../functions/audit/deps.ts";
import { syncRuntimeFromEnv } from "../../functions/sync/deps.ts";
import { createSyncWorkerHandler } from "../../functions/sync/worker.ts";
import { localLambdaContext } from "../../local/lambda-context.ts";
import { sqsRecordFrom } from "../../local/queue/lambda-event.ts";
import { type SimCredentials, type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { silentLogger } from "../../shared/ports.ts";
import { encodeHelmSecret } from "../../shared/release/helm-codec.ts";
import { memoryHistoryStores } from "../../shared/snapshots/history-stores.ts";
import { runIdFor } from "../../shared/snapshots/model.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { MemorySyncStateStore } from "../../shared/store/sync-state-memory.ts";
import { auditMessage } from "../../shared/usecases/audit-release.ts";
import type { AttributeSummary } from "../../shared/who/attribute.ts";
import { type AuditLogLookup, attributionKey } from "../../shared/who/attribution.ts";
import { createCloudWatchAuditLogLookup } from "../../shared/who/audit-log-lookup.ts";
import { MemoryAttributionStore } from "../../shared/who/memory-attribution-store.ts";
import { enqueueForAttribution, revisionSubject } from "../../shared/who/subjects.ts";
import { toolRunner } from "../drift/chart.ts";
import { simConnector } from "../status/sim-connector.ts";
import { helmPath, kubectlPath } from "../support/kube-tools.ts";
import { chartAndIdentities, PATCH_WEB_CONFIG, STORE_CLOCK } from "./support.ts";

const LAG_MS = 60_000;
/** The sync worker's period in this test (npm start's AUDIT_INTERVAL default). */
const RUN_EVERY_MS = 60_000;
const START = Math.floor(Date.now() / 60_000) * 60_000;
let clock = START;
const now = () => new Date(clock);
let sim: SimulatedEks;
let home: string;
let alice: SimCredentials;
let bob: SimCredentials;
const runtimes: { close(): Promise<void> }[] = [];

before(async () => {
  process.env.POWERTOOLS_METRICS_DISABLED = "true";
  sim = await startSimulatedEks({
    clusters: [{ name: "who" }, { name: "many" }, { name: "pushed" }],
    now,
    auditLogLagMs: LAG_MS,
  });
  const role = sim.iam.addRole(`arn:aws:iam::${sim.iam.account}:role/Deployer`);
  alice = sim.iam.issueSession(role, "alice@example.com", 24 * 3600);
  bob = sim.iam.addUser("bob").credentials;
  home = await mkdtemp(join(tmpdir(), "who-e2e-"));
});
after(async () => {
  await Promise.all(runtimes.map((runtime) => runtime.close()));
  await sim?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

/** The sync worker Lambda handler over memory stores, with the real lookup counted; what each run settled. */
function syncWorker(attributions: MemoryAttributionStore, notSynced: readonly string[] = []) {
  const registry = sim.registryEntries().map((e) => (notSynced.includes(e.name) ? { ...e, sync: false } : e));
  const env = {
    STORE_DRIVER: "memory",
    AWS_REGION: "us-east-1",
    CLUSTERS: JSON.stringify(registry),
    AWS_ENDPOINT_URL_CLOUDWATCH_LOGS: sim.logsEndpoint,
    AWS_ACCESS_KEY_ID: sim.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: sim.credentials.secretAccessKey,
    POWERTOOLS_METRICS_DISABLED: "true",
  };
  const real = createCloudWatchAuditLogLookup({
    registry: sim.registryEntries(),
    connection: { endpoint: sim.logsEndpoint, credentials: sim.credentials },
    clock: { now },
  });
  const asked = new Map<string, number>();
  const auditLog: AuditLogLookup = {
    lookup(cluster, subjects, signal) {
      for (const s of subjects) asked.set(attributionKey(s), (asked.get(attributionKey(s)) ?? 0) + 1);
      return real.lookup(cluster, subjects, signal);
    },
  };
  const settled: AttributeSummary[] = [];
  const logger = {
    ...silentLogger,
    info(message: string, attributes?: Record<string, unknown>) {
      if (message === "attributions settled") settled.push(attributes as unknown as AttributeSummary);
    },
  };
  const store = new MemoryReleaseStore();
  const overrides = { store, syncState: new MemorySyncStateStore(), attributions, auditLog, clock: { now }, logger };
  const runtime = syncRuntimeFromEnv(env, {}, { ...overrides, clusters: simConnector(sim) });
  runtimes.push(runtime);
  const handler = createSyncWorkerHandler(runtime);
  const run = async (cluster: string) => {
    const record = sqsRecordFrom(
      { MessageId: `m-${clock}`, Body: JSON.stringify({ cluster }) },
      "arn:sync",
      "us-east-1",
    );
    const answer = await handler({ Records: [record] }, localLambdaContext("sync", 300_000, { now }));
    assert.deepEqual(answer.batchItemFailures, []);
  };
  return { run, store, env, asked, settled };
}

test("helm upgrade as A, kubectl patch as B: the sync and the audit enqueue, the worker records A and B within two lags", async (t) => {
  const [helm, kubectl] = [await helmPath(), await kubectlPath()];
  if (!helm || !kubectl) return t.skip("no helm/kubectl");
  const cluster = sim.cluster("who");
  const { chart, asAlice, asBob } = await chartAndIdentities(home, cluster, { alice, bob });

  const attributions = new MemoryAttributionStore(STORE_CLOCK);
  const worker = syncWorker(attributions);
  await toolRunner(home, asAlice)(helm, ["install", "web", chart, "-n", "shop", "--create-namespace"]);
  clock += RUN_EVERY_MS;
  await worker.run("who"); // the install is synced (revision 1 enqueued) before the upgrade
  clock += 5_000;
  const upgradedAt = clock;
  await toolRunner(home, asAlice)(helm, ["upgrade", "web", chart, "-n", "shop", "--set", "level=info"]);
  clock += 10_000;
  const patchedAt = clock;
  await toolRunner(home, asBob)(kubectl, PATCH_WEB_CONFIG);

  const audit = auditRuntimeFromEnv(
    worker.env,
    {},
    {
      store: worker.store,
      clusters: simConnector(sim),
      historyStores: memoryHistoryStores(),
      clock: { now },
      logger: silentLogger,
      attributions,
    },
  );
  runtimes.push(audit);
  const key = { cluster: "who", namespace: "shop", name: "web" };
  const attributedAt = new Map<string, number>();
  for (let minute = 1; minute <= 10 && attributedAt.size < 2; minute++) {
    clock = upgradedAt - 5_000 + minute * RUN_EVERY_MS;
    await worker.run("who");
    const latest = await worker.store.getLatest(key);
    const runId = runIdFor(now());
    await audit.auditRuns.startRun(runId, now().toISOString());
    await audit.auditRuns.recordSent(runId, [{ id: `who-${minute}`, releases: 1, cluster: "who" }]);
    await auditMessage(audit, {
      v: 1,
      runId,
      part: `who-${minute}`,
      cluster: "who",
      releases: [{ namespace: "shop", name: "web", revision: latest.version ?? 0 }],
    });
    for (const a of await attributions.forRelease(key)) {
      if (a.state === "found" && !attributedAt.has(a.key) && a.key !== "rev#shop#web#1") attributedAt.set(a.key, clock);
    }
  }
  const kept = await attributions.forRelease(key);
  const byKey = new Map(kept.map((a) => [a.key, a]));
  const v2 = byKey.get("rev#shop#web#2");
  assert.equal(v2?.state, "found", JSON.stringify(v2));
  assert.equal(v2?.evidence?.identity.name, "alice@example.com");
  assert.equal(v2?.evidence?.identity.role, "Deployer");
  assert.match(v2?.evidence?.userAgent ?? "", /^Helm\//);
  assert.equal(byKey.get("rev#shop#web#1")?.evidence?.identity.name, "alice@example.com");
  const write = kept.find((a) => a.subject.type === "write");
  assert.equal(write?.state, "found", JSON.stringify(write));
  assert.equal(write?.subject.type === "write" && write.subject.manager, "kubectl-patch");
  assert.deepEqual(write?.evidence?.identity, {
    type: "iam-user",
    name: "bob",
    accountId: sim.iam.account,
    arn: `arn:aws:iam::${sim.iam.account}:user/bob`,
  });
  assert.equal(write?.evidence?.verb, "patch");

  const revisionDelay = (attributedAt.get("rev#shop#web#2") ?? Number.POSITIVE_INFINITY) - upgradedAt;
  const writeDelay = (attributedAt.get(write?.key ?? "") ?? Number.POSITIVE_INFINITY) - patchedAt;
  t.diagnostic(
    `time to attribution (lag ${LAG_MS / 1000} s, a run every ${RUN_EVERY_MS / 1000} s): revision ${revisionDelay / 1000} s, drift write ${writeDelay / 1000} s`,
  );
  const lookups = [...worker.asked.entries()].map(([k, n]) => `${k.split("#").slice(0, 4).join("#")}: ${n}`);
  t.diagnostic(`lookups per subject (not found yet, then found): ${lookups.join(", ")}`);
  assert.ok(revisionDelay <= 2 * LAG_MS, `revision attributed ${revisionDelay} ms after it was written`);
  assert.ok(writeDelay <= 2 * LAG_MS, `drift write attributed ${writeDelay} ms after it was written`);
  // Nothing found is ever asked again, and nothing is left to ask.
  assert.equal((await attributions.due("who", new Date(clock + 3_600_000), 100)).length, 0);
  assert.deepEqual(await attributions.clusterLogging("who"), {
    enabled: true,
    checkedAt: (await attributions.clusterLogging("who"))?.checkedAt,
  });
});

test("100 new revisions on one cluster, synced after their audit events arrived: a few queries, no lookup repeated", async (t) => {
  const cluster = sim.cluster("many");
  const attributions = new MemoryAttributionStore(STORE_CLOCK);
  const worker = syncWorker(attributions);
  cluster.apply([{ apiVersion: "v1", kind: "Namespace", metadata: { name: "batch" } }]);
  const first = clock + RUN_EVERY_MS;
  for (let n = 1; n <= 100; n++) {
    clock = first + n * 20_000; // one every 20 s: 100 revisions over 33 minutes
    const name = `job${n % 10}`;
    const version = Math.ceil(n / 10);
    cluster.apply([
      encodeHelmSecret({
        name,
        namespace: "batch",
        version,
        manifest: "",
        info: { status: "deployed", last_deployed: now().toISOString(), description: "Upgrade complete" },
        chart: { metadata: { name: "job", version: "0.1.0" } },
      }),
    ]);
    cluster.recordAudit({
      credentials: alice,
      verb: "create",
      target: { apiVersion: "v1", kind: "Secret", name: `sh.helm.release.v1.${name}.v${version}`, namespace: "batch" },
      userAgent: "Helm/4.1.0",
    });
  }
  clock += LAG_MS;
  for (let run = 1; run <= 10; run++) {
    clock += RUN_EVERY_MS;
    await worker.run("many");
    const due = await attributions.due("many", new Date(clock + 3_600_000), 1000);
    if (due.length === 0) break;
  }
  const all = (
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        attributions.forRelease({ cluster: "many", namespace: "batch", name: `job${i}` }),
      ),
    )
  ).flat();
  assert.equal(all.length, 100);
  assert.ok(
    all.every((a) => a.state === "found" && a.evidence?.identity.name === "alice@example.com"),
    JSON.stringify(all.find((a) => a.state !== "found")),
  );
  const queries = worker.settled.reduce((sum, s) => sum + s.queries, 0);
  const repeated = [...worker.asked.values()].filter((times) => times > 1).length;
  t.diagnostic(
    `100 new revisions: ${queries} queries in ${worker.settled.reduce((sum, s) => sum + s.lookups, 0)} lookups; subjects looked up more than once: ${repeated}`,
  );
  assert.ok(queries <= 5, `${queries} queries`);
  assert.equal(repeated, 0);
});

test("a cluster with sync: false is not synced, but what its imports enqueued is looked up by the sync worker", async () => {
  const cluster = sim.cluster("pushed");
  const attributions = new MemoryAttributionStore(STORE_CLOCK);
  const worker = syncWorker(attributions, ["pushed"]);
  cluster.apply([{ apiVersion: "v1", kind: "Namespace", metadata: { name: "apps" } }]);
  clock += RUN_EVERY_MS;
  const secret = encodeHelmSecret({
    name: "api",
    namespace: "apps",
    version: 1,
    manifest: "",
    info: { status: "deployed", last_deployed: now().toISOString(), description: "Install complete" },
    chart: { metadata: { name: "api", version: "0.1.0" } },
  });
  cluster.apply([secret]);
  cluster.recordAudit({
    credentials: alice,
    verb: "create",
    target: { apiVersion: "v1", kind: "Secret", name: "sh.helm.release.v1.api.v1", namespace: "apps" },
    userAgent: "Helm/4.1.0",
  });
  // What `cli push` / the import route enqueue for a revision they store (shared/usecases/import.ts).
  const subject = revisionSubject("pushed", { namespace: "apps", release: "api", revision: 1 }, secret, now());
  await enqueueForAttribution({ attributions, logger: silentLogger }, [subject], now());
  clock += LAG_MS + RUN_EVERY_MS;
  await worker.run("pushed"); // no SyncDisabledError redelivered: the record succeeds
  const [kept] = await attributions.forRelease({ cluster: "pushed", namespace: "apps", name: "api" });
  assert.equal(kept?.state, "found", JSON.stringify(kept));
  assert.equal(kept.evidence?.identity.name, "alice@example.com");
  assert.equal((await worker.store.listReleases({ cluster: "pushed" })).items.length, 0, "nothing synced");
});
