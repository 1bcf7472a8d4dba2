/**
 * The freshness check's cost (docs/sync.md, docs/status.md "STORED"), for `npm run bench -- sync`: one metadata LIST
 * of the release's Helm storage in the same wave as the resource GETs.
 *   - a status with the check vs without it (`freshness: false`), median of interleaved runs;
 *   - an audit pass over many releases (the audit worker's read, `auditedState`, under its per-cluster limit) vs the
 *     same pass reading the stored revision only (`readReleaseState`, the audit's read before the check): time per
 *     pass and requests per release.
 * Prints, never asserts.
 */
import { ClusterLimiter } from "../shared/audit/cluster-limiter.ts";
import type { KubeReader } from "../shared/kube/reader.ts";
import { silentLogger } from "../shared/ports.ts";
import type { Release } from "../shared/release/model.ts";
import type { ReleaseStore } from "../shared/store/release-store.ts";
import { auditedState } from "../shared/usecases/audit-release.ts";
import { readReleaseState } from "../shared/usecases/release-state.ts";
import { releaseStatus } from "../shared/usecases/status.ts";
import { median } from "./lib.ts";

const STATUS_RUNS = 30;
const AUDIT_ROUNDS = 10;
/** The bench's AUDIT_CLUSTER_CONCURRENCY (bench/audit.bench.ts): releases of one cluster audited at once. */
const AUDIT_CONCURRENCY = 8;

export interface FreshnessBench {
  cluster: string;
  kube: KubeReader;
  store: ReleaseStore;
  out: (line?: string) => void;
  /** The simulated cluster's request counter (reset, then read after a pass). */
  requests: { reset(): Promise<void>; total(): Promise<number> };
}

/** Interleaved timings of `a` and `b` (a warm-up of each first): their medians in ms. */
async function interleaved(runs: number, a: () => Promise<unknown>, b: () => Promise<unknown>) {
  for (let i = 0; i < 5; i++) await Promise.all([a(), b()]);
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < runs; i++) {
    for (const which of i % 2 === 0 ? [0, 1] : [1, 0]) {
      const started = performance.now();
      await (which === 0 ? a() : b());
      times[which].push(performance.now() - started);
    }
  }
  return { a: median(times[0]), b: median(times[1]) };
}

/** A status of `probe` (stored, its resources in the cluster) with its freshness LIST and without. */
export async function statusWithAndWithout(bench: FreshnessBench, probe: Release): Promise<void> {
  const status = (freshness: boolean) =>
    releaseStatus(
      { store: bench.store, kube: bench.kube, logger: silentLogger },
      { cluster: bench.cluster, namespace: probe.namespace, name: probe.name, freshness, drift: false },
    );
  const { a: withMs, b: withoutMs } = await interleaved(
    STATUS_RUNS,
    () => status(true),
    () => status(false),
  );
  bench.out(
    `status of a 20-resource release: ${withMs.toFixed(1)} ms with the freshness LIST, ${withoutMs.toFixed(1)} ms without ` +
      `(median of ${STATUS_RUNS} each, interleaved): ${(withMs / withoutMs).toFixed(2)}x (goal <= 1.1x)`,
  );
}

/**
 * An audit pass over `releases` (each stored at the revision the cluster's Helm storage holds, the steady state:
 * the LIST finds nothing newer, nothing more is read) with the check and without it.
 */
export async function auditWithAndWithout(bench: FreshnessBench, releases: readonly Release[]): Promise<void> {
  const deps = { kube: bench.kube, logger: silentLogger };
  const pass = (freshness: boolean) => async () => {
    const limiter = new ClusterLimiter(AUDIT_CONCURRENCY);
    const reports = await Promise.all(
      releases.map((release) =>
        limiter.run(bench.cluster, () =>
          freshness
            ? auditedState(deps, bench.cluster, release, undefined)
            : readReleaseState(deps, { cluster: bench.cluster, release }),
        ),
      ),
    );
    const stale = reports.filter((r) => freshness && r.freshness?.state !== "matches").length;
    if (stale > 0) throw new Error(`audit bench: ${stale} releases did not match the cluster's revision`);
  };
  const perRelease = async (run: () => Promise<void>) => {
    await bench.requests.reset();
    await run();
    return (await bench.requests.total()) / releases.length;
  };
  const { a: withMs, b: withoutMs } = await interleaved(AUDIT_ROUNDS, pass(true), pass(false));
  const requestsWith = await perRelease(pass(true));
  const requestsWithout = await perRelease(pass(false));
  const rate = (ms: number) => ((releases.length / ms) * 1000).toFixed(0);
  bench.out(
    `audit pass of ${releases.length} 20-resource releases (${AUDIT_CONCURRENCY} at once, median of ${AUDIT_ROUNDS} each, interleaved): ` +
      `${withMs.toFixed(0)} ms with the freshness LIST (${rate(withMs)} releases/s, ${requestsWith.toFixed(1)} requests per release), ` +
      `${withoutMs.toFixed(0)} ms without (${rate(withoutMs)} releases/s, ${requestsWithout.toFixed(1)} requests per release): ` +
      `${(withMs / withoutMs).toFixed(2)}x`,
  );
}
