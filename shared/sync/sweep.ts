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
import { storageObjectName } from "../release/storage-identity.ts";
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
  input: { cluster: string; chains: readonly Chain[]; checkRevisions?: boolean },
): Promise<void> {
  // What the cluster holds: objects imported under Helm's identity rule (a refused object holds nothing).
  const live = new Map<string, Set<number>>();
  for (const record of ctx.records.values()) {
    if (record.error || !record.checked) continue;
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
        const id = { namespace: release.namespace, name: release.name };
        if (ctx.session.deadlineReached) return;
        const target: SweptRelease = { cluster: input.cluster, drivers, release: id, held: revisions };
        if (!revisions?.has(release.revision)) await removeUnheld(ctx, target);
        if (input.checkRevisions) await removeUnproven(ctx, target);
      }
      cursor = listing.cursor;
      if (!cursor) break;
    }
  }
}

/** One stored release the sweep looks at: where its storage objects would be, and the revisions the cluster holds. */
interface SweptRelease {
  cluster: string;
  drivers: readonly StorageDriver[];
  release: { namespace: string; name: string };
  held: ReadonlySet<number> | undefined;
}

async function removeUnheld(ctx: SweepContext, { cluster, drivers, release, held }: SweptRelease): Promise<void> {
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
    if (!(await goneFromCluster(ctx, drivers, release, latest))) return;
    if ((await ctx.store.removeRevision(key, latest)) !== "removed") return;
    recordRemoval(ctx.summary, {
      release: `${release.namespace}/${release.name}`,
      revision: latest,
      origin: "import",
      reason: "imported by hand or before the first sync; the cluster's Helm storage does not hold it",
    });
  }
}

/**
 * The one-time repair of a store written before Helm's identity rule (docs/sync.md, "A store holding forged
 * revisions"): every stored revision of the release, not only the latest, that no live storage object holds
 * and that has no provenance (stored before it was kept) or came from the sync is removed once a GET confirms
 * its object is gone. A payload filed under another release's name by an older version is such a revision.
 * Revisions imported by hand since provenance is kept stay, as before, below the ones the cluster holds.
 */
async function removeUnproven(ctx: SweepContext, { cluster, drivers, release, held }: SweptRelease): Promise<void> {
  const key = { cluster, ...release };
  const stored = await ctx.store.revisionSources(key);
  for (const { revision, source } of stored.slice(0, MAX_REMOVALS_PER_RELEASE * 10)) {
    if (held?.has(revision) || source?.via === "import") continue;
    if (ctx.session.deadlineReached) return;
    if (!(await goneFromCluster(ctx, drivers, release, revision))) continue;
    if ((await ctx.store.removeRevision(key, revision)) !== "removed") continue;
    recordRemoval(ctx.summary, {
      release: `${release.namespace}/${release.name}`,
      revision,
      origin: source ? "sync" : "import",
      reason: source
        ? "its storage object is gone"
        : "stored without provenance (before Helm's identity rule was checked) and no storage object of the cluster holds it",
    });
  }
}

/** Whether no driver's storage object holds the revision any more (written since the LISTs, unreadable, out of time: held). */
async function goneFromCluster(
  ctx: SweepContext,
  drivers: readonly StorageDriver[],
  release: { namespace: string; name: string },
  revision: number,
): Promise<boolean> {
  const entry = { namespace: release.namespace, name: storageObjectName(release.name, revision) };
  for (const driver of drivers) {
    const answer = await getStorageObject(ctx.session, driver, entry);
    if (answer.kind !== "deadline") ctx.summary.bytes += answer.bytes;
    if (answer.kind !== "gone") return false;
  }
  return true;
}
