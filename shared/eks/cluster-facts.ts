/**
 * Endpoint + CA per cluster, as DescribeCluster gave them, asked as seldom as a fleet needs (docs/scale.md
 * "Fixes"): kept `ttlMs` (one hour) in memory and in the `stored` facts (the releases table), so a cold start
 * reads another process's answer instead of asking EKS; asked again sooner when the API server contradicts them
 * (`doubt`: its certificate does not verify, its address does not answer), at most every ENDPOINT_RECHECK_MS, and
 * that wait doubled (up to the hour) each time EKS answers the same (a cluster down, not moved); while EKS
 * throttles or cannot be reached, the last known facts keep serving a minute at a time. One refresh per cluster
 * at a time; clusters never wait on each other's.
 */

import type { ClusterEntry } from "../clusters/connector.ts";
import { sharedInFlight } from "../concurrency.ts";
import type { Logger } from "../ports.ts";
import { type ClusterFacts, describeCluster, type EksClientLike, isThrottled } from "./aws-calls.ts";
import type { ClusterFactsStore, StoredClusterFacts } from "./facts-store.ts";

const MINUTE = 60_000;
/** Facts younger than this are not asked again after a failure: a cluster down for an hour costs a few calls, not one per read. */
const ENDPOINT_RECHECK_MS = 5 * MINUTE;
/** After a refresh that failed (throttled, EKS unreachable), the last known facts serve this long before asking again. */
const STALE_REUSE_MS = MINUTE;

export interface ClusterFactsOptions {
  now: () => number;
  logger: Logger;
  timeoutMs: number;
  ttlMs: number;
  /** The cluster's EKS client (built once per cluster by the connector). */
  eksClient: (entry: ClusterEntry) => EksClientLike;
  stored?: ClusterFactsStore;
}

interface FactsState {
  /** `kept`: read from the store, not described by this process. */
  facts?: { value: ClusterFacts; fetchedAt: number; kept?: boolean };
  /** The fetchedAt of facts the API server contradicted: a stored copy that old is not trusted again. */
  distrustedAt?: number;
  /** The endpoint and CA that were doubted, and how long to wait before doubting them again. */
  doubted?: { endpoint: string; caData: string; recheckMs: number };
  inFlight?: Promise<ClusterFacts>;
}

export interface ClusterFactsCache {
  get(entry: ClusterEntry): Promise<ClusterFacts>;
  /** The API server contradicted the facts: ask again (unless they were fetched too recently for that). */
  doubt(cluster: string): boolean;
}

export function clusterFactsCache(options: ClusterFactsOptions): ClusterFactsCache {
  const { now, logger, ttlMs, stored } = options;
  const states = new Map<string, FactsState>();
  const stateOf = (cluster: string): FactsState => {
    let state = states.get(cluster);
    if (!state) {
      state = {};
      states.set(cluster, state);
    }
    return state;
  };
  const asFacts = (name: string, kept: StoredClusterFacts): ClusterFacts => ({
    name,
    endpoint: kept.endpoint,
    caData: kept.caData,
    status: "ACTIVE",
    ...(kept.version ? { version: kept.version } : {}),
  });

  async function refresh(entry: ClusterEntry, state: FactsState): Promise<ClusterFacts> {
    const kept = await readStored(entry);
    const trusted = kept && kept.fetchedAt > (state.distrustedAt ?? Number.NEGATIVE_INFINITY);
    if (kept && trusted && now() - kept.fetchedAt < ttlMs) {
      const value = asFacts(entry.name, kept);
      state.facts = { value, fetchedAt: kept.fetchedAt, kept: true };
      return value;
    }
    try {
      const value = await describeCluster(entry, options.eksClient(entry), options.timeoutMs);
      const fetchedAt = now();
      state.facts = { value, fetchedAt };
      state.distrustedAt = undefined;
      const same = state.doubted?.endpoint === value.endpoint && state.doubted.caData === value.caData;
      if (!same) state.doubted = undefined;
      await writeStored(entry.name, {
        describedIn: accountAndRegion(entry),
        endpoint: value.endpoint,
        caData: value.caData,
        fetchedAt,
        version: value.version,
      });
      return value;
    } catch (error) {
      // Throttled, or EKS out of reach: the last known facts still name the API server (it answers on its own).
      const last =
        state.distrustedAt === undefined ? (state.facts?.value ?? (kept && asFacts(entry.name, kept))) : undefined;
      const cause = (error as { cause?: unknown }).cause ?? error;
      if (last && (isThrottled(cause) || (error as { kind?: string }).kind === "unavailable")) {
        logger.warn("DescribeCluster failed; using the cluster's last known endpoint", {
          cluster: entry.name,
          throttled: isThrottled(cause),
        });
        state.facts = { value: last, fetchedAt: now() - ttlMs + STALE_REUSE_MS };
        return last;
      }
      throw error;
    }
  }

  async function readStored(entry: ClusterEntry): Promise<StoredClusterFacts | undefined> {
    if (!stored) return undefined;
    const cluster = entry.name;
    try {
      const kept = await stored.read(cluster);
      // Described for another cluster of the same name (the registry moved it to another region or account):
      // not this one's endpoint, however young.
      return kept?.describedIn === accountAndRegion(entry) ? kept : undefined;
    } catch (error) {
      logger.warn("reading a cluster's kept endpoint failed; asking EKS", { cluster, error: (error as Error).message });
      return undefined;
    }
  }

  async function writeStored(cluster: string, facts: StoredClusterFacts): Promise<void> {
    try {
      await stored?.write(cluster, facts);
    } catch (error) {
      logger.warn("keeping a cluster's endpoint failed", { cluster, error: (error as Error).message });
    }
  }

  return {
    get(entry) {
      const state = stateOf(entry.name);
      const cached = state.facts;
      if (cached && now() - cached.fetchedAt < ttlMs) return Promise.resolve(cached.value);
      return sharedInFlight(state, () => refresh(entry, state));
    },

    doubt(cluster) {
      const state = states.get(cluster);
      const facts = state?.facts;
      if (!state || !facts) return false;
      // Doubted before and EKS answered the same: the cluster is down, not moved; wait longer each time.
      const again = state.doubted?.endpoint === facts.value.endpoint && state.doubted.caData === facts.value.caData;
      const recheckMs = again ? state.doubted!.recheckMs : ENDPOINT_RECHECK_MS;
      // A kept copy another process wrote (or a simulator since restarted on new ports) is checked at once.
      if (!facts.kept && now() - facts.fetchedAt < recheckMs) return false;
      state.doubted = {
        endpoint: facts.value.endpoint,
        caData: facts.value.caData,
        recheckMs: again ? Math.min(recheckMs * 2, ttlMs) : ENDPOINT_RECHECK_MS,
      };
      state.distrustedAt = facts.fetchedAt;
      state.facts = undefined;
      return true;
    },
  };
}

/**
 * Which EKS cluster of this name the facts describe: its account (from the registry's role, else the function's
 * own: "") and region. Names are unique only within one account's region.
 */
function accountAndRegion(entry: ClusterEntry): string {
  const account = entry.roleArn?.split(":")[4] ?? "";
  return `${account}/${entry.region}`;
}
