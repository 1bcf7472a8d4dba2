/**
 * The scale bench's fleet (issue #36): the simulator in its own thread with N clusters over N/10 accounts
 * (local/sim/fleet.ts), each seeded with M Helm releases as Helm writes them (the storage Secret with the whole
 * chart in its payload: a `helm create` chart's templates and values, gzip + base64 twice) and their live objects
 * (ServiceAccount, Service, Deployment materialised with its ReplicaSet and Pods).
 */
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { type FleetOptions, fleetSimOptions } from "../local/sim/fleet.ts";
import { startSimulatedEksInWorker, type WorkerSimulatedEks } from "../local/sim/worker.ts";
import { encodeHelmSecret } from "../shared/release/helm-codec.ts";
import type { Release } from "../shared/release/model.ts";

export const NAMESPACES = 5;

/** The rendered `helm create demo` chart without its test hook: 3 objects (ServiceAccount, Service, Deployment). */
const HELM_CREATE = readFileSync(new URL("../test/sim/fixtures/helm-create-demo.yaml", import.meta.url), "utf8").split(
  "---\n# Source: demo/templates/tests/",
)[0];
/** The chart's files as Helm keeps them in the release: each rendered template, base64 (as in the payload). */
const TEMPLATES = HELM_CREATE.split("---\n# Source: ")
  .filter(Boolean)
  .map((part) => ({
    name: part.slice(0, part.indexOf("\n")).replace(/^demo\//, ""),
    data: Buffer.from(part).toString("base64"),
  }));
const VALUES = `replicaCount: 1\nimage:\n  repository: nginx\n  pullPolicy: IfNotPresent\n  tag: ""\nservice:\n  type: ClusterIP\n  port: 80\ningress:\n  enabled: false\nresources: {}\nautoscaling:\n  enabled: false\n  minReplicas: 1\n  maxReplicas: 100\n`;

export function fleetRelease(index: number): Release {
  const name = `rel-${index}`;
  return {
    name,
    namespace: `ns-${index % NAMESPACES}`,
    version: 1,
    info: { status: "deployed", last_deployed: "2026-12-01T10:00:00Z", description: "Install complete" },
    chart: { metadata: { name: "demo", version: "0.1.0", appVersion: "1.16.0" } },
    config: { replicaCount: 1 },
    manifest: HELM_CREATE.replaceAll("demo", name),
    hooks: [],
  };
}

/** Helm's storage Secret of a release, its payload the size Helm's is (the whole chart inside). */
export function helmStorageSecret(release: Release) {
  const secret = encodeHelmSecret(release);
  const chart = { metadata: release.chart?.metadata, templates: TEMPLATES, values: VALUES };
  const payload = gzipSync(Buffer.from(JSON.stringify({ ...release, chart })), { level: 9 }).toString("base64");
  return { ...secret, data: { release: Buffer.from(payload, "latin1").toString("base64") } };
}

export interface Fleet {
  sim: WorkerSimulatedEks;
  names: string[];
  /** Releases per cluster, as seeded. */
  releases: Map<string, number>;
  /** Bytes of all seeded storage Secrets' data. */
  secretBytes: number;
}

/**
 * Starts the fleet and seeds it: `releases` per cluster, except those `overrides` names (e.g. one cluster of
 * 5,000 releases next to ones of 5). Seeding goes straight into the simulator (not through the API): it is set-up.
 */
export async function startFleet(
  options: FleetOptions & { releases: number; overrides?: Record<string, number> },
): Promise<Fleet> {
  const sim = await startSimulatedEksInWorker(fleetSimOptions(options));
  const names = sim.registryEntries().map((entry) => entry.name);
  const releases = new Map(names.map((name) => [name, options.overrides?.[name] ?? options.releases]));
  let secretBytes = 0;
  // The same release objects serve every cluster (only what the cluster is told differs); built once.
  const largest = Math.max(...releases.values());
  const built = Array.from({ length: largest }, (_, i) => {
    const release = fleetRelease(i);
    const secret = helmStorageSecret(release);
    return { release, secret, bytes: Buffer.byteLength(secret.data.release) };
  });
  const seedOne = async (name: string) => {
    const count = releases.get(name) ?? 0;
    const cluster = sim.cluster(name);
    await cluster.apply(
      Array.from({ length: NAMESPACES }, (_, i) => ({
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: `ns-${i}` },
      })),
    );
    for (let start = 0; start < count; start += 500) {
      const chunk = built.slice(start, Math.min(count, start + 500));
      await cluster.apply(chunk.map((b) => b.secret));
      for (const b of chunk) secretBytes += b.bytes;
      // One materialize per namespace of the chunk: the releases' objects, one YAML stream.
      for (let ns = 0; ns < NAMESPACES; ns++) {
        const manifests = chunk.filter((b) => b.release.namespace === `ns-${ns}`).map((b) => b.release.manifest);
        if (manifests.length > 0) await cluster.materialize(manifests.join("\n---\n"), { namespace: `ns-${ns}` });
      }
    }
  };
  // Four clusters at a time: the worker does the work; more in flight only queues.
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let i = next++; i < names.length; i = next++) await seedOne(names[i]);
    }),
  );
  return { sim, names, releases, secretBytes };
}
