/**
 * The simulated EKS in a worker thread, behind an async proxy.
 *
 * A real EKS API server is remote: its CPU (token verification, Table building,
 * JSON encoding) never competes with the client's event loop. In-process, the
 * simulator's per-request CPU serialises a client's parallel requests and makes
 * the client look slower than it is. The benchmark therefore runs the simulator
 * here, on its own thread (its own event loop, a second core when there is one).
 *
 * Only what crosses a thread boundary is offered: options and results are plain
 * data (structured clone), so the clocks and the faults' `match` predicate of the
 * in-process API are not available.
 */
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import type { AwsCallStats, RateLimitedAction } from "./aws/rate-limit.ts";
import type { SimOptions, SimRegistryEntry, SimulatedEks } from "./index.ts";
import type { Faults, RequestStats } from "./kube/faults.ts";
import type { MaterializeOptions } from "./materialize.ts";

/** How long a stopped worker is given to end by itself before it is terminated. */
const SELF_EXIT_MS = 3_000;

/** The serialisable subset of SimOptions. */
export type WorkerSimOptions = Omit<SimOptions, "now" | "authNow">;

export interface WorkerSimCluster {
  readonly name: string;
  readonly region: string;
  readonly server: string;
  kubeconfig(options?: { namespace?: string }): Promise<string>;
  /** Returns how many objects were made. */
  materialize(manifestYaml: string, options?: Omit<MaterializeOptions, "createdAt">): Promise<number>;
  /** Returns how many objects were stored. */
  apply(objects: object[] | string): Promise<number>;
  readonly faults: { set(faults: Partial<Omit<Faults, "match">>): Promise<void>; clear(): Promise<void> };
  stats(): Promise<RequestStats>;
  resetStats(): Promise<void>;
  /** Stops the cluster's API server: connections are refused from now on (SimCluster.stopApiServer). */
  stopApiServer(): Promise<void>;
}

export interface WorkerSimulatedEks {
  readonly eksEndpoint: string;
  readonly stsEndpoint: string;
  readonly logsEndpoint: string;
  readonly credentials: { accessKeyId: string; secretAccessKey: string };
  registryEntries(): SimRegistryEntry[];
  cluster(name: string): WorkerSimCluster;
  /** DescribeCluster's and AssumeRole's calls and throttling (SimulatedEks.aws). */
  readonly aws: {
    stats(): Promise<AwsCallStats>;
    resetStats(): Promise<void>;
    throttleFor(action: RateLimitedAction, ms: number): Promise<void>;
  };
  /** SimIam.denyAction: e.g. a role's `sts:AssumeRole` (its account's credentials revoked). */
  denyAction(principalArn: string, action: string): Promise<void>;
  /** SimIam.revokeAccount: the account's roles and session keys stop working. */
  revokeAccount(account: string): Promise<void>;
  /** The worker's own memory (the simulator's heap is not the caller's). */
  memoryUsage(): Promise<NodeJS.MemoryUsage>;
  /** CPU time the simulator's thread has used (µs, like process.threadCpuUsage()). */
  cpuUsage(): Promise<{ user: number; system: number }>;
  stop(): Promise<void>;
}

interface Ready {
  type: "ready";
  eksEndpoint: string;
  stsEndpoint: string;
  logsEndpoint: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  registryEntries: SimRegistryEntry[];
  clusters: Array<{ name: string; region: string; server: string }>;
}
interface Call {
  id: number;
  cluster?: string;
  method: string;
  args: unknown[];
}
type Reply = { id: number; value?: unknown; error?: { name: string; message: string } };

const WORKER_MARKER = "helm-status-lambda/sim-worker";
/** Bounds a call that the worker never answers (it died, or a bug): no caller waits forever. */
const CALL_TIMEOUT_MS = 60_000;

export async function startSimulatedEksInWorker(options: WorkerSimOptions = {}): Promise<WorkerSimulatedEks> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { marker: WORKER_MARKER, options } });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  let exited: Error | undefined;
  const failAll = (error: Error) => {
    exited = error;
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
  };
  worker.on("error", (error) => failAll(error));
  worker.on("exit", (code) => failAll(new Error(`the simulator worker exited (code ${code})`)));

  const ready = await new Promise<Ready>((resolve, reject) => {
    const onMessage = (message: Ready | Reply) => {
      if ("type" in message && message.type === "ready") {
        worker.off("message", onMessage);
        resolve(message);
      } else if ("error" in message && message.id === -1) {
        reject(new Error(`the simulator worker did not start: ${message.error?.message}`));
      }
    };
    worker.on("message", onMessage);
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`the simulator worker exited before it was ready (code ${code})`)));
  });
  worker.on("message", (reply: Reply) => {
    const waiter = pending.get(reply.id);
    if (!waiter) return;
    pending.delete(reply.id);
    if (reply.error) waiter.reject(Object.assign(new Error(reply.error.message), { name: reply.error.name }));
    else waiter.resolve(reply.value);
  });

  const call = <T>(method: string, args: unknown[] = [], cluster?: string): Promise<T> => {
    if (exited) return Promise.reject(exited);
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`the simulator worker did not answer ${method} within ${CALL_TIMEOUT_MS} ms`));
      }, CALL_TIMEOUT_MS);
      timer.unref();
      const settle =
        <V>(fn: (value: V) => void) =>
        (value: V) => {
          clearTimeout(timer);
          fn(value);
        };
      pending.set(id, { resolve: settle(resolve as (value: unknown) => void), reject: settle(reject) });
      worker.postMessage({ id, cluster, method, args } satisfies Call);
    });
  };

  const clusters = new Map(
    ready.clusters.map((c) => [
      c.name,
      {
        ...c,
        kubeconfig: (o?: { namespace?: string }) => call<string>("kubeconfig", [o ?? {}], c.name),
        materialize: (manifest: string, o?: MaterializeOptions) =>
          call<number>("materialize", [manifest, o ?? {}], c.name),
        apply: (objects: object[] | string) => call<number>("apply", [objects], c.name),
        faults: {
          set: (faults: Partial<Faults>) => call<void>("faults.set", [faults], c.name),
          clear: () => call<void>("faults.clear", [], c.name),
        },
        stats: () => call<RequestStats>("stats", [], c.name),
        resetStats: () => call<void>("resetStats", [], c.name),
        stopApiServer: () => call<void>("stopApiServer", [], c.name),
      } satisfies WorkerSimCluster,
    ]),
  );
  let stopped: Promise<void> | undefined;
  return {
    eksEndpoint: ready.eksEndpoint,
    stsEndpoint: ready.stsEndpoint,
    logsEndpoint: ready.logsEndpoint,
    credentials: ready.credentials,
    registryEntries: () => ready.registryEntries.map((entry) => ({ ...entry })),
    cluster(name) {
      const cluster = clusters.get(name);
      if (!cluster) throw new Error(`no simulated cluster named "${name}" (have: ${[...clusters.keys()].join(", ")})`);
      return cluster;
    },
    aws: {
      stats: () => call<AwsCallStats>("aws.stats"),
      resetStats: () => call<void>("aws.resetStats"),
      throttleFor: (action: RateLimitedAction, ms: number) => call<void>("aws.throttleFor", [action, ms]),
    },
    denyAction: (principalArn: string, action: string) => call<void>("iam.denyAction", [principalArn, action]),
    revokeAccount: (account: string) => call<void>("iam.revokeAccount", [account]),
    memoryUsage: () => call<NodeJS.MemoryUsage>("memoryUsage"),
    cpuUsage: () => call<{ user: number; system: number }>("cpuUsage"),
    stop() {
      stopped ??= (async () => {
        if (!exited) {
          const ended = new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => resolve(false), SELF_EXIT_MS);
            timer.unref();
            worker.once("exit", () => {
              clearTimeout(timer);
              resolve(true);
            });
          });
          try {
            await call("stop");
          } finally {
            // The thread ends by itself once its servers are stopped and its port closed. terminate() on a thread
            // still compiling can abort the whole process in V8 (`Check failed: jit_page.has_value()`, seen under a
            // loaded test run), so it is only the fallback past a deadline.
            if (!(await ended)) await worker.terminate();
          }
        }
      })();
      return stopped;
    },
  };
}

/** Inside the worker: start the simulator, answer calls until "stop". */
async function serveInWorker(options: WorkerSimOptions): Promise<void> {
  const port = parentPort!;
  const { startSimulatedEks } = await import("./index.ts");
  let sim: SimulatedEks;
  try {
    sim = await startSimulatedEks(options);
  } catch (error) {
    port.postMessage({ id: -1, error: { name: (error as Error).name, message: (error as Error).message } });
    return;
  }
  port.postMessage({
    type: "ready",
    eksEndpoint: sim.eksEndpoint,
    stsEndpoint: sim.stsEndpoint,
    logsEndpoint: sim.logsEndpoint,
    credentials: sim.credentials,
    registryEntries: sim.registryEntries(),
    clusters: sim.clusters().map((c) => ({ name: c.name, region: c.region, server: c.server })),
  } satisfies Ready);
  port.on("message", async ({ id, cluster: name, method, args }: Call) => {
    try {
      const value = await dispatch(sim, name, method, args);
      port.postMessage({ id, value } satisfies Reply);
      if (method === "stop") port.close();
    } catch (error) {
      port.postMessage({
        id,
        error: { name: (error as Error).name, message: (error as Error).message },
      } satisfies Reply);
    }
  });
}

async function dispatch(sim: SimulatedEks, name: string | undefined, method: string, args: unknown[]) {
  if (method === "stop") return sim.stop();
  if (method === "memoryUsage") return process.memoryUsage();
  if (method === "cpuUsage") return process.threadCpuUsage();
  if (method === "aws.stats") return sim.aws.stats();
  if (method === "aws.resetStats") return sim.aws.resetStats();
  if (method === "aws.throttleFor") return sim.aws.throttleFor(args[0] as RateLimitedAction, args[1] as number);
  if (method === "iam.denyAction") return sim.iam.denyAction(args[0] as string, args[1] as string);
  if (method === "iam.revokeAccount") return sim.iam.revokeAccount(args[0] as string);
  const cluster = sim.cluster(name ?? "");
  switch (method) {
    case "kubeconfig":
      return cluster.kubeconfig(args[0] as { namespace?: string });
    case "materialize":
      return cluster.materialize(args[0] as string, args[1] as MaterializeOptions).length;
    case "apply":
      return cluster.apply(args[0] as object[] | string).length;
    case "faults.set":
      return cluster.faults.set(args[0] as Partial<Faults>);
    case "faults.clear":
      return cluster.faults.clear();
    case "stats":
      return cluster.stats();
    case "resetStats":
      return cluster.resetStats();
    case "stopApiServer":
      return cluster.stopApiServer();
    default:
      throw new Error(`the simulator worker has no method "${method}"`);
  }
}

if (!isMainThread && (workerData as { marker?: string } | undefined)?.marker === WORKER_MARKER) {
  await serveInWorker((workerData as { options: WorkerSimOptions }).options);
}
