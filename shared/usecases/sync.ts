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
import type { AttributionStore } from "../who/attribution.ts";

export interface SyncDeps {
  store: ReleaseStore;
  syncState: SyncStateStore;
  kube: KubeReader;
  scope: ClusterScope;
  logger: Logger;
  /** Each revision imported new is enqueued here for attribution (docs/who.md); absent: not attributed. */
  attributions?: AttributionStore;
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
    const cursor = state.cursor?.scope === scopeKey ? state.cursor : undefined;
    summary.resumed = cursor !== undefined;
    // A resumed run continues its chain where the cursor stopped, then lists every other chain from its start:
    // a run is complete only when every chain reached its end in it (a chain refused or cut short in an earlier
    // run is never taken as listed).
    const first = cursor && cursor.chain < chains.length ? cursor.chain : 0;
    const order = chains.map((_, i) => (first + i) % chains.length);
    const listedInRun = new Set<number>();
    let stopped = false;
    await deps.kube.withSession(
      cluster,
      { deadline: input.deadline, concurrency: input.concurrency ?? 16 },
      async (session) => {
        try {
          for (const [position, index] of order.entries()) {
            const outcome = await runChain(
              { ...deps, session, records, summary, now, renewLease: lease },
              {
                cluster,
                chain: chains[index],
                start: position === 0 && cursor?.chain === index ? cursor : undefined,
                pageSize: input.pageSize ?? DEFAULT_SYNC_PAGE_SIZE,
                concurrency: input.concurrency ?? 16,
                maxRequests: input.maxRequests ?? 50_000,
                saveCursor: (at: Pick<SyncCursor, "continueToken" | "after">) =>
                  deps.syncState.saveState(cluster, { ...state, cursor: { chain: index, scope: scopeKey, ...at } }),
                onProgress: input.onProgress,
              },
            );
            if (outcome === "stopped") {
              stopped = true;
              return;
            }
            if (outcome === "done") listedInRun.add(index);
            // The next chain starts fresh; remember that this one is behind us.
            const next = order[position + 1];
            if (next !== undefined) {
              await deps.syncState.saveState(cluster, {
                ...state,
                cursor: { chain: next, scope: scopeKey, after: "" },
              });
            }
          }
          if (listedInRun.size === chains.length && summary.forbidden.length === 0) {
            const checkRevisions = state.revisionsChecked !== "*" && state.revisionsChecked !== scopeKey;
            await sweepStore({ ...deps, session, records, summary }, { cluster, chains, checkRevisions });
            summary.complete = !session.deadlineReached;
          }
        } finally {
          // Whatever ended the run (its deadline included), the requests it sent.
          summary.requests = session.counters.requests;
        }
      },
    );
    finish(summary, now());
    const next: SyncState<SyncSummary> = {
      lastRun: { startedAt: summary.startedAt, finishedAt: summary.finishedAt, complete: summary.complete, summary },
      lastCompleteAt: summary.complete ? summary.finishedAt : state.lastCompleteAt,
    };
    const revisionsChecked = summary.complete && state.revisionsChecked !== "*" ? scopeKey : state.revisionsChecked;
    if (revisionsChecked) next.revisionsChecked = revisionsChecked;
    // A run stopped mid-chain keeps the cursor runChain saved; one that went through every chain without
    // completing (a LIST refused) starts again at the first chain not listed; a complete one starts over.
    if (!summary.complete) {
      const unlisted = chains.findIndex((_, index) => !listedInRun.has(index));
      next.cursor = stopped
        ? (await deps.syncState.state<SyncSummary>(cluster)).cursor
        : { chain: Math.max(0, unlisted), scope: scopeKey, after: "" };
    }
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
