/**
 * The release sync (docs/sync.md): brings one cluster's Helm storage (Secrets
 * and ConfigMaps labelled owner=helm) into the store, incrementally.
 *
 * validate → scope check → policy (`sync: false`, namespace allow-list) → the
 * cluster's lease → metadata-only paginated LISTs, compared with the object
 * records of earlier runs → GET only what is new or changed, imported through
 * the import's own path (same decoding, limits, gzip-bomb guard, conditional
 * writes; one bad object fails alone) → revisions whose object is gone are
 * removed from the store and listed in the summary → the cursor saved after
 * every page, so a run cut short by its deadline (or killed) is resumed by the
 * next one → once every LIST reached its end, the store's releases the cluster
 * no longer holds (imported by hand, or before the first sync) are removed too,
 * each checked with a GET first and named in the summary.
 */
import { randomUUID } from "node:crypto";
import type { SyncPolicy } from "../clusters/connector.ts";
import { type ClusterScope, requireKnownCluster } from "../clusters/scope.ts";
import { DomainError, ValidationError } from "../errors.ts";
import type { KubeReader } from "../kube/reader.ts";
import type { Logger } from "../ports.ts";
import { validateClusterName, validateNamespace } from "../release/validation.ts";
import type { ReleaseStore } from "../store/release-store.ts";
import type { SyncCursor, SyncState, SyncStateStore } from "../store/sync-state.ts";
import type { Chain } from "../sync/chain.ts";
import { runChain } from "../sync/run-chain.ts";
import { emptySummary, type SyncSummary } from "../sync/summary.ts";
import { sweepStore } from "../sync/sweep.ts";

export interface SyncDeps {
  store: ReleaseStore;
  syncState: SyncStateStore;
  kube: KubeReader;
  scope: ClusterScope;
  logger: Logger;
}

export interface SyncInput {
  cluster: string;
  /** Namespaces to sync; absent = all (or the policy's allow-list). */
  namespaces?: string[];
  policy?: SyncPolicy;
  /** Epoch ms (reader clock) after which nothing new starts; the cursor is kept for the next run. */
  deadline?: number;
  /** Objects per LIST page (default 500, kubectl's chunk size). */
  pageSize?: number;
  /** GETs and imports in flight (default 16). */
  concurrency?: number;
  /** Requests this run may send (default 50,000). */
  maxRequests?: number;
  /** How long the lease lasts without renewal (default 60 s; renewed after every page). */
  leaseMs?: number;
  onProgress?: (summary: SyncSummary) => void;
}

export class SyncDisabledError extends ValidationError {
  constructor(cluster: string) {
    super(`release sync is turned off for cluster "${cluster}" (sync: false in the registry)`, "SyncDisabled");
  }
}

export class SyncBusyError extends DomainError {
  readonly kind = "conflict" as const;
  readonly code = "SyncRunning";
  constructor(cluster: string, until: number) {
    super(
      `a sync of cluster "${cluster}" is already running (its lease ends ${new Date(until).toISOString()}); try again later`,
    );
  }
}

export const DEFAULT_SYNC_PAGE_SIZE = 500;
const DEFAULT_LEASE_MS = 60_000;

export async function syncCluster(deps: SyncDeps, input: SyncInput): Promise<SyncSummary> {
  const cluster = validateClusterName(input.cluster);
  requireKnownCluster(deps.scope, cluster);
  if (input.policy && !input.policy.enabled) throw new SyncDisabledError(cluster);
  const namespaces = namespacesOf(input, cluster);
  const now = () => deps.kube.clock.now().getTime();
  const startedAt = now();
  const summary = emptySummary(cluster, namespaces, new Date(startedAt));
  const owner = randomUUID();
  const leaseMs = input.leaseMs ?? DEFAULT_LEASE_MS;
  const lease = async () => {
    const taken = await deps.syncState.acquireLease(cluster, owner, now() + leaseMs, now());
    if (!taken.acquired) throw new SyncBusyError(cluster, taken.holder?.expiresAt ?? now());
  };
  await lease();
  try {
    const chains = chainsOf(namespaces);
    const scopeKey = namespaces === "*" ? "*" : namespaces.join(",");
    const state = await deps.syncState.state<SyncSummary>(cluster);
    const records = new Map((await deps.syncState.objects(cluster)).map((record) => [record.object, record]));
    let cursor = state.cursor?.scope === scopeKey ? state.cursor : undefined;
    summary.resumed = cursor !== undefined;
    let allListed = true;
    await deps.kube.withSession(
      cluster,
      { deadline: input.deadline, concurrency: input.concurrency ?? 16 },
      async (session) => {
        for (let index = cursor?.chain ?? 0; index < chains.length; index++) {
          const outcome = await runChain(
            { ...deps, session, records, summary, now, renewLease: lease },
            {
              cluster,
              chain: chains[index],
              start: cursor?.chain === index ? cursor : undefined,
              pageSize: input.pageSize ?? DEFAULT_SYNC_PAGE_SIZE,
              concurrency: input.concurrency ?? 16,
              maxRequests: input.maxRequests ?? 50_000,
              saveCursor: (position: Pick<SyncCursor, "continueToken" | "after">) =>
                deps.syncState.saveState(cluster, { ...state, cursor: { chain: index, scope: scopeKey, ...position } }),
              onProgress: input.onProgress,
            },
          );
          cursor = undefined;
          if (outcome === "stopped") {
            allListed = false;
            return;
          }
          if (outcome === "forbidden") allListed = false;
          // The next chain starts fresh; remember that this one is done.
          if (index + 1 < chains.length) {
            await deps.syncState.saveState(cluster, {
              ...state,
              cursor: { chain: index + 1, scope: scopeKey, after: "" },
            });
          }
        }
        if (allListed && summary.forbidden.length === 0) {
          await sweepStore({ ...deps, session, records, summary }, { cluster, chains });
          summary.complete = !session.deadlineReached;
        }
        summary.requests = session.counters.requests;
      },
    );
    finish(summary, now());
    const next: SyncState<SyncSummary> = {
      lastRun: { startedAt: summary.startedAt, finishedAt: summary.finishedAt, complete: summary.complete, summary },
      lastCompleteAt: summary.complete ? summary.finishedAt : state.lastCompleteAt,
    };
    // An incomplete run keeps the cursor runChain saved; a complete one starts over next time.
    if (!summary.complete) next.cursor = (await deps.syncState.state<SyncSummary>(cluster)).cursor;
    await deps.syncState.saveState(cluster, next);
    deps.logger.info("release sync finished", { ...counters(summary) });
    return summary;
  } finally {
    await deps.syncState.releaseLease(cluster, owner).catch(() => undefined);
  }
}

/** The last run of a cluster, for `GET /clusters/{cluster}/sync` and `sync --status`. */
export async function lastSync(
  deps: Pick<SyncDeps, "syncState" | "scope">,
  input: { cluster: string },
): Promise<SyncState<SyncSummary>> {
  const cluster = validateClusterName(input.cluster);
  requireKnownCluster(deps.scope, cluster);
  const { lastRun, lastCompleteAt, cursor } = await deps.syncState.state<SyncSummary>(cluster);
  return {
    ...(lastRun ? { lastRun } : {}),
    ...(lastCompleteAt ? { lastCompleteAt } : {}),
    ...(cursor ? { cursor } : {}),
  };
}

function namespacesOf(input: SyncInput, cluster: string): string[] | "*" {
  const asked = input.namespaces?.map((namespace) => validateNamespace(namespace));
  const allowed = input.policy?.namespaces;
  if (!allowed) return asked?.length ? [...new Set(asked)].sort() : "*";
  if (!asked?.length) return allowed;
  const outside = asked.filter((namespace) => !allowed.includes(namespace));
  if (outside.length > 0) {
    throw new ValidationError(
      `namespace ${outside.map((n) => `"${n}"`).join(", ")} is not synced for cluster "${cluster}" (sync.namespaces: ${allowed.join(", ")})`,
      "SyncNamespaceNotAllowed",
    );
  }
  return [...new Set(asked)].sort();
}

function chainsOf(namespaces: string[] | "*"): Chain[] {
  const scopes = namespaces === "*" ? [undefined] : namespaces;
  return (["secrets", "configmaps"] as const).flatMap((driver) => scopes.map((namespace) => ({ driver, namespace })));
}

function finish(summary: SyncSummary, now: number): void {
  summary.finishedAt = new Date(now).toISOString();
  summary.durationMs = now - Date.parse(summary.startedAt);
  if (!summary.complete && !summary.hint) {
    summary.hint =
      summary.forbidden.length > 0
        ? "the cluster refused some LISTs: grant list/get on secrets (and configmaps) or limit sync.namespaces (docs/sync.md)"
        : "stopped before every LIST reached its end; the next run continues where this one stopped";
  }
}

export function counters(summary: SyncSummary) {
  const { cluster, listed, fetched, imported, updated, unchanged, failed, removed, requests, bytes, complete } =
    summary;
  return { cluster, listed, fetched, imported, updated, unchanged, failed, removed, requests, bytes, complete };
}
