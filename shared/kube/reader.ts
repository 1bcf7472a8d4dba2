import type { LookupFunction } from "node:net";
import type { ClusterConnector } from "../clusters/connector.ts";
import type { NamespaceAccess } from "../clusters/namespace-access.ts";
import type { ManifestObject } from "../manifest/manifest.ts";
import { type PreparedManifest, PreparedManifestCache, type RevisionKey } from "../manifest/prepared-manifest.ts";
import { type Clock, type Logger, systemClock } from "../ports.ts";
import { DEFAULT_DISCOVERY_TTL_MS, DiscoveryCache } from "./discovery.ts";
import { type FetchResult, readReleaseResources } from "./fetch.ts";
import { ConnectionPools } from "./http.ts";
import { ClusterLimit } from "./limiter.ts";
import { KubeSession } from "./session.ts";

/**
 * Everything a long-lived process keeps to read clusters, in one object its
 * creator closes (the API's cold start, the CLI command, the local server, an
 * audit worker): the connection pools, the per-cluster in-flight limits, the
 * discovery cache and the prepared-manifest LRU. Nothing of it lives in module
 * globals, so two readers (two tests, two composition roots) never share state.
 *
 * Every option is declared here once, with its default; the status use case,
 * the session and the fetch take the resolved settings from the reader.
 */

export interface KubeReaderOptions {
  connector: ClusterConnector;
  /** The one clock: deadlines, discovery TTL, AGE cells, observedAt. Default: the system clock. */
  clock?: Clock;
  limits?: {
    /** Reads of one status in flight at once (default 64: a 40-resource release is one wave). */
    perStatus?: number;
    /** Reads in flight to one cluster, shared by every status of the process (default 128). */
    perCluster?: number;
    /** The per-cluster limit never adapts below this on 429s (default 4). */
    minPerCluster?: number;
    /** Sockets per cluster (default: perCluster, one per request in flight over HTTP/1.1). */
    socketsPerCluster?: number;
  };
  timeouts?: {
    /** One request (default 10 s). */
    requestMs?: number;
    /** Attempts per request, retries included (default 4). */
    maxAttempts?: number;
    /** How long discovery is trusted per cluster (default 10 min). */
    discoveryTtlMs?: number;
  };
  cache?: {
    /** Prepared manifests kept (default 64 revisions, 0 = none: a one-shot CLI). */
    manifestEntries?: number;
    /** Their total size in UTF-16 characters (default 32 Mi). */
    manifestChars?: number;
  };
  /** Offer HTTP/2 to the API servers (default true); see http2-env.ts. */
  http2?: boolean;
  /** Backoff jitter (default Math.random; tests pin it). */
  random?: () => number;
  /** How API server names are resolved (default: the system's dns.lookup; tests give one that never answers). */
  lookup?: LookupFunction;
  /** Debug lines per request (timing, limiter wait, retries) when its debugEnabled() says so; off by default. */
  logger?: Logger;
}

export interface KubeReaderSettings {
  perStatus: number;
  perCluster: number;
  minPerCluster: number;
  socketsPerCluster: number;
  requestTimeoutMs: number;
  maxAttempts: number;
  discoveryTtlMs: number;
  manifestEntries: number;
  manifestChars: number;
  http2: boolean;
}

export const KUBE_READER_DEFAULTS: Readonly<KubeReaderSettings> = Object.freeze({
  perStatus: 64,
  perCluster: 128,
  minPerCluster: 4,
  socketsPerCluster: 128,
  requestTimeoutMs: 10_000,
  maxAttempts: 4,
  discoveryTtlMs: DEFAULT_DISCOVERY_TTL_MS,
  manifestEntries: 64,
  manifestChars: 32 * 1024 * 1024,
  http2: true,
});

export interface LiveStateRequest {
  cluster: string;
  /** The release namespace: the default for namespaced objects that name none. */
  namespace: string;
  objects: readonly ManifestObject[];
  /** Absolute time (epoch ms, by the reader's clock) after which nothing is read. */
  deadline?: number;
  /** This status's cap instead of `perStatus` (CLI --concurrency, STATUS_CONCURRENCY). */
  concurrency?: number;
  /** The caller's access to the release's objects (absent: all); the others are not read (fetch.ts). */
  sees?: NamespaceAccess;
}

export interface ClusterReadStats {
  limit: number;
  inFlight: number;
  maxInFlight: number;
  queued: number;
  /** Times a 429 / 503+Retry-After lowered the limit. */
  decreases: number;
  socketsOpened: number;
  discovery?: "aggregated" | "legacy";
}

export interface KubeReader {
  readonly connector: ClusterConnector;
  readonly clock: Clock;
  readonly settings: Readonly<KubeReaderSettings>;
  /** A stored revision's manifest, parsed and redacted (cached per revision while the reader lives). */
  prepare(key: RevisionKey, manifest: string, hookManifests: readonly string[]): PreparedManifest;
  /** Every object's live state (one wave of GETs). Throws only for cluster-level failures. */
  read(request: LiveStateRequest): Promise<FetchResult>;
  /**
   * Runs `work` with a session on `cluster` under the same per-cluster limit, retries, timeouts and
   * deadline rules as a status's reads (the release sync's LISTs and GETs); the session is closed after.
   */
  withSession<T>(
    cluster: string,
    options: { deadline?: number; concurrency?: number },
    work: (session: KubeSession) => Promise<T>,
  ): Promise<T>;
  stats(cluster: string): ClusterReadStats;
  /** Forget discovery (a cluster that was rebuilt). */
  forgetDiscovery(cluster?: string): void;
  /** Ends queued reads, closes every connection; idempotent. */
  close(): Promise<void>;
}

export function createKubeReader(options: KubeReaderOptions): KubeReader {
  const settings = resolveSettings(options);
  const clock = options.clock ?? systemClock;
  const discovery = new DiscoveryCache();
  const manifests = new PreparedManifestCache({
    maxEntries: settings.manifestEntries,
    maxChars: settings.manifestChars,
  });
  const pools = new ConnectionPools({
    maxSockets: settings.socketsPerCluster,
    http2: settings.http2,
    lookup: options.lookup,
  });
  const limits = new Map<string, ClusterLimit>();
  const sessions = new Set<KubeSession>();
  let closed = false;

  const limitFor = (cluster: string): ClusterLimit => {
    let limit = limits.get(cluster);
    if (!limit) {
      limit = new ClusterLimit({ maxInFlight: settings.perCluster, minInFlight: settings.minPerCluster, clock });
      limits.set(cluster, limit);
    }
    return limit;
  };

  return {
    connector: options.connector,
    clock,
    settings,
    prepare: (key, manifest, hooks) => manifests.prepare(key, manifest, hooks),

    read(request) {
      return this.withSession(request.cluster, request, (session) =>
        readReleaseResources(
          { session, discovery, discoveryTtlMs: settings.discoveryTtlMs, clock },
          { namespace: request.namespace, objects: request.objects, sees: request.sees },
        ),
      );
    },

    async withSession(cluster, sessionOptions, work) {
      if (closed) throw new Error("the kube reader is closed");
      const session = new KubeSession({
        cluster,
        connector: options.connector,
        pools,
        clusterLimit: limitFor(cluster),
        deadline: sessionOptions.deadline,
        concurrency: sessionOptions.concurrency ?? settings.perStatus,
        requestTimeoutMs: settings.requestTimeoutMs,
        maxAttempts: settings.maxAttempts,
        clock,
        random: options.random,
        debug: options.logger?.debugEnabled?.() ? options.logger : undefined,
      });
      sessions.add(session);
      try {
        return await work(session);
      } finally {
        session.close();
        sessions.delete(session);
      }
    },

    stats(cluster) {
      const limit = limits.get(cluster);
      return {
        limit: limit?.limit ?? settings.perCluster,
        inFlight: limit?.inFlight ?? 0,
        maxInFlight: limit?.maxInFlight ?? 0,
        queued: limit?.queued ?? 0,
        decreases: limit?.decreases ?? 0,
        socketsOpened: pools.opened(cluster),
        discovery: discovery.mode(cluster),
      };
    },

    forgetDiscovery: (cluster) => discovery.clear(cluster),

    async close() {
      closed = true;
      for (const session of sessions) session.close();
      for (const limit of limits.values()) limit.cancelAll();
      manifests.clear();
      discovery.clear();
      await pools.close();
    },
  };
}

function resolveSettings(options: KubeReaderOptions): KubeReaderSettings {
  const d = KUBE_READER_DEFAULTS;
  const whole = (value: number | undefined, fallback: number, min: number) =>
    value === undefined || !Number.isFinite(value) ? fallback : Math.max(min, Math.floor(value));
  const perCluster = whole(options.limits?.perCluster, d.perCluster, 1);
  return {
    perStatus: whole(options.limits?.perStatus, d.perStatus, 1),
    perCluster,
    minPerCluster: Math.min(perCluster, whole(options.limits?.minPerCluster, d.minPerCluster, 1)),
    socketsPerCluster: whole(options.limits?.socketsPerCluster, perCluster, 1),
    requestTimeoutMs: whole(options.timeouts?.requestMs, d.requestTimeoutMs, 1),
    maxAttempts: whole(options.timeouts?.maxAttempts, d.maxAttempts, 1),
    discoveryTtlMs: whole(options.timeouts?.discoveryTtlMs, d.discoveryTtlMs, 0),
    manifestEntries: whole(options.cache?.manifestEntries, d.manifestEntries, 0),
    manifestChars: whole(options.cache?.manifestChars, d.manifestChars, 0),
    http2: options.http2 ?? d.http2,
  };
}
