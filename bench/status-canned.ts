/**
 * Bench section: the warm status against canned answers. A worker thread replays the simulator's own answers
 * for the release (recorded once) after the same latency and does nothing else, so the engine's figure there is
 * what it costs when the server costs nothing: the part of "engine / limit" that is the engine's own (its
 * requests, the answers' parsing, the report and text) rather than the simulator's single thread.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { Worker } from "node:worker_threads";
import { makeServerCertificates } from "../local/sim/certs.ts";
import type { ClusterAccess, ClusterConnector } from "../shared/clusters/connector.ts";
import { createEksConnector } from "../shared/eks/connector.ts";
import { ConnectionPools } from "../shared/kube/http.ts";
import { createKubeReader, type KubeReader } from "../shared/kube/reader.ts";
import { silentLogger } from "../shared/ports.ts";
import { renderStatusText } from "../shared/render/status/text.ts";
import { releaseStatus } from "../shared/usecases/status.ts";
import type { CannedAnswer, CannedServerData } from "./canned-server.ts";
import { median, spread, timed } from "./lib.ts";
import type { BenchContext } from "./status-cold-scale.ts";

const ROUNDS = 30;
const START_TIMEOUT_MS = 10_000;

export interface CannedFigures {
  lines: string[];
  engineOverLimit: number;
}

/** `reader` is the bench's warm reader on the simulator; the release is read from `ctx.store` both times. */
export async function cannedComparison(
  ctx: BenchContext,
  reader: KubeReader,
  release: { name: string; namespace: string },
  latencyMs: number,
): Promise<CannedFigures> {
  const request = { cluster: ctx.clusterName, ...release };
  const status = async (kube: KubeReader) =>
    renderStatusText(await releaseStatus({ store: ctx.store, kube, logger: silentLogger }, request));
  const pools = new ConnectionPools();
  const simAccess = await createEksConnector({
    registry: ctx.sim.registryEntries(),
    credentials: async () => ctx.sim.credentials,
  }).access(ctx.clusterName);
  const sim = await pools.requester(ctx.clusterName, simAccess);

  // What the engine asks for, answered once by the simulator: the recording.
  await ctx.cluster.resetStats();
  await status(reader);
  const asked = (await ctx.cluster.stats()).log.map((entry) => ({
    path: entry.query ? `${entry.path}?${entry.query}` : entry.path,
    accept: entry.accept,
  }));
  const answers: Record<string, CannedAnswer> = {};
  await Promise.all(
    asked.map(async ({ path, accept }) => {
      const answer = await sim.get(path, accept, AbortSignal.timeout(START_TIMEOUT_MS));
      answers[path] = { status: answer.status, contentType: answer.headers["content-type"] ?? "", body: answer.body };
    }),
  );

  const certificates = await makeServerCertificates("canned");
  const data: CannedServerData = { ...certificates, latencyMs, answers };
  const worker = new Worker(new URL("./canned-server.ts", import.meta.url), { workerData: data });
  let canned: KubeReader | undefined;
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the canned server did not start")), START_TIMEOUT_MS);
      worker.once("message", (message: { port: number }) => {
        clearTimeout(timer);
        resolve(message.port);
      });
      worker.once("error", reject);
    });
    const access: ClusterAccess = {
      server: `https://127.0.0.1:${port}`,
      ca: certificates.caPem,
      headers: simAccess.headers,
    };
    const connector: ClusterConnector = {
      list: () => [{ name: ctx.clusterName, region: "canned" }],
      access: async () => access,
      invalidate: () => {},
    };
    canned = createKubeReader({ connector });
    const cannedRtt = await pools.requester("canned", access);
    const lone = asked.find(({ path }) => !path.includes("/pods?")) ?? asked[0];
    const roundTrip = (requester: typeof sim) =>
      timed(() => requester.get(lone.path, lone.accept, AbortSignal.timeout(START_TIMEOUT_MS)));
    for (let i = 0; i < 5; i++) await status(canned);

    const times = {
      sim: [] as number[],
      canned: [] as number[],
      simRtt: [] as number[],
      cannedRtt: [] as number[],
      store: [] as number[],
    };
    for (let round = 0; round < ROUNDS; round++) {
      times.sim.push((await timed(() => status(reader))).ms);
      times.canned.push((await timed(() => status(canned as KubeReader))).ms);
      times.store.push((await timed(() => ctx.store.getLatest({ cluster: ctx.clusterName, ...release }))).ms);
      times.simRtt.push((await roundTrip(sim)).ms);
      times.cannedRtt.push((await roundTrip(cannedRtt)).ms);
    }
    const m = (list: number[]) => median(list);
    const simLimit = m(times.store) + m(times.simRtt);
    const cannedLimit = m(times.store) + m(times.cannedRtt);
    const fmt = (list: number[]) => `${m(list).toFixed(1).padStart(5)} ms (${spread(list)})`;
    return {
      engineOverLimit: m(times.canned) / cannedLimit,
      lines: [
        `canned answers: the same warm status against a server that replays the simulator's ${asked.length} recorded answers after +${latencyMs} ms and does nothing else (a worker thread), ${ROUNDS} interleaved rounds`,
        `  simulator       status ${fmt(times.sim)}, 1 RTT ${fmt(times.simRtt)}: engine / limit ${(m(times.sim) / simLimit).toFixed(2)}x`,
        `  canned answers  status ${fmt(times.canned)}, 1 RTT ${fmt(times.cannedRtt)}: engine / limit ${(m(times.canned) / cannedLimit).toFixed(2)}x`,
        `  (limit = store read ${m(times.store).toFixed(1)} ms + 1 RTT; what stays over it with canned answers is the engine's: its ${asked.length} requests, parsing the answers, the report and text)`,
      ],
    };
  } finally {
    await canned?.close();
    await pools.close();
    worker.postMessage("stop");
    // Bounded: a worker that already died (or never stops) must not hold the bench.
    await Promise.race([
      new Promise((resolve) => worker.once("exit", resolve)),
      sleep(START_TIMEOUT_MS, undefined, { ref: false }),
    ]);
    await worker.terminate();
  }
}
