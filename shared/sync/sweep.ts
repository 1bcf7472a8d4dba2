/**
 * After every LIST of a run reached its end: releases the store holds for the
 * synced namespaces whose latest revision has no storage object in the
 * cluster. They were imported by hand (CLI, API, CI) or before the first
 * sync, and the cluster no longer has them (`helm uninstall` while nothing
 * synced): left alone they would stay `deployed` for ever. Each revision, newest
 * first, is checked with a GET of its object (a revision written meanwhile is
 * kept) and removed, stopping at the first one the cluster holds; every
 * removal is named in the summary with origin `import`.
 */
import type { KubeSession } from "../kube/session.ts";
import { HELM_OBJECT_PREFIX } from "../release/helm-codec.ts";
import type { ReleaseStore } from "../store/release-store.ts";
import type { SyncedObject } from "../store/sync-state.ts";
import type { Chain } from "./chain.ts";
import { getStorageObject, type StorageDriver } from "./storage-reads.ts";
import { recordRemoval, type SyncSummary } from "./summary.ts";

export interface SweepContext {
  store: ReleaseStore;
  session: KubeSession;
  records: ReadonlyMap<string, SyncedObject>;
  summary: SyncSummary;
}

const MAX_LISTING_PAGES = 1_000;
const MAX_REMOVALS_PER_RELEASE = 100;

export async function sweepStore(
  ctx: SweepContext,
  input: { cluster: string; chains: readonly Chain[] },
): Promise<void> {
  const live = new Map<string, Set<number>>();
  for (const record of ctx.records.values()) {
    const id = `${record.namespace}/${record.release}`;
    const revisions = live.get(id) ?? new Set<number>();
    revisions.add(record.revision);
    live.set(id, revisions);
  }
  const drivers = [...new Set(input.chains.map((chain) => chain.driver))];
  const namespaces = [...new Set(input.chains.map((chain) => chain.namespace))];
  for (const namespace of namespaces) {
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LISTING_PAGES; page++) {
      const listing = await ctx.store.listReleases({ cluster: input.cluster, namespace }, { limit: 1000, cursor });
      for (const release of listing.items) {
        const revisions = live.get(`${release.namespace}/${release.name}`);
        if (revisions?.has(release.revision)) continue;
        if (ctx.session.deadlineReached) return;
        await removeUnheld(
          ctx,
          input.cluster,
          drivers,
          { namespace: release.namespace, name: release.name },
          revisions,
        );
      }
      cursor = listing.cursor;
      if (!cursor) break;
    }
  }
}

async function removeUnheld(
  ctx: SweepContext,
  cluster: string,
  drivers: readonly StorageDriver[],
  release: { namespace: string; name: string },
  held: ReadonlySet<number> | undefined,
): Promise<void> {
  const key = { cluster, ...release };
  for (let removed = 0; removed < MAX_REMOVALS_PER_RELEASE; removed++) {
    let latest: number;
    try {
      latest = (await ctx.store.history(key, { limit: 1 })).items[0]?.version ?? 0;
    } catch (error) {
      if ((error as Error).name === "ReleaseNotFoundError") return;
      throw error;
    }
    if (latest < 1 || held?.has(latest)) return;
    const entry = { namespace: release.namespace, name: `${HELM_OBJECT_PREFIX}${release.name}.v${latest}` };
    for (const driver of drivers) {
      const answer = await getStorageObject(ctx.session, driver, entry);
      if (answer.kind !== "deadline") ctx.summary.bytes += answer.bytes;
      // Written since the LISTs, unreadable, or out of time: keep it (the next run decides).
      if (answer.kind !== "gone") return;
    }
    if ((await ctx.store.removeRevision(key, latest)) !== "removed") return;
    recordRemoval(ctx.summary, {
      release: `${release.namespace}/${release.name}`,
      revision: latest,
      origin: "import",
      reason: "imported by hand or before the first sync; the cluster's Helm storage does not hold it",
    });
  }
}
