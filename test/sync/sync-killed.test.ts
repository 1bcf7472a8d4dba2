/**
 * kill -9 mid-sync, for real: `cli sync` in a child process (the entry point, the registry, EKS auth, the
 * simulator over HTTPS, DynamoDB Local as the store) is SIGKILLed once it has imported some revisions but not all.
 * The next `cli sync` is refused while the dead run's lease lasts, takes the cluster over once it has expired,
 * resumes from the saved cursor (no revision imported twice, no GET of an object already recorded beyond the page
 * that was in flight), and the store ends equal to the cluster's Helm storage.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { DynamoDBClient, GetItemCommand } from "@aws-sdk/client-dynamodb";
import { type DynamoDbLocal, startDynamoDbLocal } from "../../local/dynamodb-local.ts";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { encodeHelmSecret } from "../../shared/release/helm-codec.ts";
import type { Release, ReleaseStatus } from "../../shared/release/model.ts";
import { openReleaseStore } from "../../shared/store/config.ts";
import type { ReleaseStore } from "../../shared/store/release-store.ts";
import { ensureReleasesTable } from "../../shared/store/table-schema.ts";
import { CLI, runCli, startNode } from "../support/cli.ts";
import { simCliEnv } from "../support/sim.ts";

const hasJava = spawnSync("java", ["-version"]).status === 0;
const CLUSTER = "killed";
const TABLE = `sync-killed-${process.pid}`;
const NAMESPACES = 4;
const RELEASES = 20;
const REVISIONS = 3;
const TOTAL = RELEASES * REVISIONS;
const PAGE_SIZE = 5;
const LEASE_SECONDS = 5;
/** Every storage object GET costs this on the simulator, so the run is still going when it is killed. */
const LATENCY_MS = 40;
const STATUSES: ReleaseStatus[] = ["deployed", "superseded", "failed", "uninstalled", "pending-install"];

let sim: SimulatedEks;
let dynamo: DynamoDbLocal;
let client: DynamoDBClient;
let store: ReleaseStore;
let home: string;
let env: NodeJS.ProcessEnv;

function revision(index: number, version: number): Release {
  const name = `app-${index}`;
  return {
    name,
    namespace: `team-${index % NAMESPACES}`,
    version,
    manifest: `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  rev: "${version}"\n`,
    info: {
      status: version === REVISIONS ? "deployed" : "superseded",
      last_deployed: "2026-12-03T10:00:00Z",
      description: version === 1 ? "Install complete" : "Upgrade complete",
    },
    chart: { metadata: { name: "demo", version: "0.1.0" } },
  };
}

/** Every revision the store holds, as `namespace/name vN status`, sorted. */
async function storedRevisions(): Promise<string[]> {
  const rows: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await store.listRevisions({ cluster: CLUSTER, statuses: STATUSES }, { limit: 500, cursor });
    for (const r of page.items) rows.push(`${r.namespace}/${r.name} v${r.revision} ${r.status}`);
    cursor = page.cursor;
    if (!cursor) break;
  }
  return rows.sort();
}

/** The same for the cluster's Helm storage (its Secrets' labels). */
function clusterRevisions(): string[] {
  return sim
    .cluster(CLUSTER)
    .list("v1", "Secret")
    .filter((s) => s.metadata?.labels?.owner === "helm")
    .map((s) => {
      const labels = s.metadata?.labels ?? {};
      return `${s.metadata?.namespace}/${labels.name} v${labels.version} ${labels.status}`;
    })
    .sort();
}

const storageGets = () =>
  sim
    .cluster(CLUSTER)
    .stats()
    .log.filter((r) => r.method === "GET" && /\/secrets\/sh\.helm\.release/.test(r.path)).length;

async function leaseItem(): Promise<{ owner: string; expiresAt: number } | undefined> {
  const answer = await client.send(
    new GetItemCommand({
      TableName: TABLE,
      Key: { PK: { S: `SYNC#${CLUSTER}` }, SK: { S: "LEASE" } },
      ConsistentRead: true,
    }),
  );
  const item = answer.Item;
  return item ? { owner: item.owner?.S ?? "", expiresAt: Number(item.expiresAt?.N) } : undefined;
}

const syncArgs = [
  "sync",
  "--cluster",
  CLUSTER,
  "-o",
  "json",
  "--page-size",
  String(PAGE_SIZE),
  "--concurrency",
  "2",
  "--lease",
  String(LEASE_SECONDS),
];

before(async () => {
  if (!hasJava) return;
  [sim, dynamo] = await Promise.all([
    startSimulatedEks({ clusters: [{ name: CLUSTER }], latencyMs: LATENCY_MS }),
    startDynamoDbLocal(),
  ]);
  home = await mkdtemp(join(tmpdir(), "sync-killed-"));
  const credentials = { accessKeyId: "x", secretAccessKey: "x" };
  client = new DynamoDBClient({ region: "us-east-1", endpoint: dynamo.endpoint, credentials });
  await ensureReleasesTable(client, { tableName: TABLE, region: "us-east-1", endpoint: dynamo.endpoint });
  store = openReleaseStore({ tableName: TABLE, region: "us-east-1", endpoint: dynamo.endpoint, credentials });
  const objects: object[] = Array.from({ length: NAMESPACES }, (_, i) => ({
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: `team-${i}` },
  }));
  for (let i = 0; i < RELEASES; i++) {
    for (let v = 1; v <= REVISIONS; v++) objects.push(encodeHelmSecret(revision(i, v)));
  }
  sim.cluster(CLUSTER).apply(objects);
  env = simCliEnv(sim, { home, dynamoEndpoint: dynamo.endpoint, table: TABLE });
  // The command's modules loaded once now, so the in-process runs below start within the lease's time.
  assert.equal((await runCli(["sync", "--help"], env)).code, 0);
});

after(async () => {
  client?.destroy();
  await Promise.allSettled([sim?.stop(), dynamo?.stop()]);
  if (home) await rm(home, { recursive: true, force: true });
});

test("cli sync killed with SIGKILL mid-run: the next run waits out its lease, resumes, and the store equals the cluster", {
  skip: !hasJava && "no java for DynamoDB Local",
  timeout: 90_000,
}, async (t) => {
  const t0 = Date.now();
  const mark = (what: string) => t.diagnostic(`${what}: ${Date.now() - t0} ms`);
  assert.equal(clusterRevisions().length, TOTAL);
  sim.cluster(CLUSTER).resetStats();
  const running = startNode(CLI, syncArgs, { env, timeoutMs: 60_000 });
  // Evidence that it is mid-way: some revisions in DynamoDB Local, not all. Bounded by a deadline.
  const deadline = Date.now() + 45_000;
  let seen = 0;
  while (Date.now() < deadline) {
    seen = (await storedRevisions()).length;
    if (seen >= 2 * PAGE_SIZE) break;
    if (running.child.exitCode !== null) break;
    await sleep(100);
  }
  mark(`killed at ${seen}`);
  running.child.kill("SIGKILL");
  const code = await running.exited;
  assert.equal(
    running.child.signalCode,
    "SIGKILL",
    `exited by itself (${code}) before the kill: ${running.output.stderr}`,
  );
  assert.equal(running.output.stdout, "", "killed before it printed a summary");
  const imported = (await storedRevisions()).length;
  assert.ok(imported >= 2 * PAGE_SIZE && imported < TOTAL, `killed mid-way: ${imported} of ${TOTAL} imported`);
  const firstGets = storageGets();

  // The dead run's lease is still held: the next run is refused, saying until when.
  const held = await leaseItem();
  assert.ok(held && held.expiresAt > Date.now(), `the killed run's lease is still held: ${JSON.stringify(held)}`);
  // (It was renewed after the killed run's last page, so most of its LEASE_SECONDS are left.)
  assert.ok(
    held.expiresAt - Date.now() > 1500,
    `too little of the lease left to try: ${held.expiresAt - Date.now()} ms`,
  );
  const refused = await runCli(syncArgs, env);
  assert.equal(refused.code, 1, refused.stdout);
  assert.match(refused.stderr, /a sync of cluster "killed" is already running \(its lease ends /);
  assert.deepEqual(await leaseItem(), held, "a refused run leaves the lease alone");

  // Once it has expired, the next run takes the cluster over and resumes where the killed one stopped.
  const wait = held.expiresAt - Date.now() + 100;
  assert.ok(wait <= LEASE_SECONDS * 1000 + 100, `the lease lasts at most --lease: ${wait} ms left`);
  if (wait > 0) await sleep(wait);
  sim.cluster(CLUSTER).resetStats();
  mark("lease expired");
  const resumed = await runCli(syncArgs, env);
  mark(`resumed run done (${JSON.parse(resumed.stdout || "{}").durationMs} ms)`);
  assert.equal(resumed.code, 0, `${resumed.stdout}${resumed.stderr}`);
  const summary = JSON.parse(resumed.stdout);
  assert.equal(summary.complete, true);
  assert.equal(summary.resumed, true, "continued from the killed run's cursor");
  // Nothing imported twice: this run imports exactly what the killed one had not.
  assert.equal(summary.imported, TOTAL - imported, JSON.stringify(summary));
  assert.deepEqual([summary.failed, summary.removed], [0, 0]);
  // Objects the killed run recorded are not read again; at most the page it was in has no records yet.
  const secondGets = storageGets();
  assert.ok(
    secondGets >= TOTAL - imported && secondGets <= TOTAL - imported + PAGE_SIZE,
    `GETs after the kill: ${secondGets} for ${TOTAL - imported} revisions not yet imported (before it: ${firstGets})`,
  );
  assert.equal(await leaseItem(), undefined, "the lease is released at the end");

  // No lost, no duplicated revision: the store holds exactly what Helm's storage holds, statuses included.
  assert.deepEqual(await storedRevisions(), clusterRevisions());
  // And what `list` shows (each release's latest) is the cluster's deployed revision.
  const latest = await store.listReleases({ cluster: CLUSTER }, { limit: 100 });
  assert.deepEqual(
    latest.items.map((r) => `${r.namespace}/${r.name} v${r.revision} ${r.status}`).sort(),
    clusterRevisions().filter((row) => row.endsWith(` v${REVISIONS} deployed`)),
  );

  mark("store compared");
  // And the next run only LISTs.
  const quiet = JSON.parse((await runCli(syncArgs, env)).stdout);
  mark(`quiet run done (${quiet.durationMs} ms, ${quiet.requests} requests)`);
  assert.deepEqual([quiet.fetched, quiet.imported, quiet.updated, quiet.resumed], [0, 0, 0, false]);
});
