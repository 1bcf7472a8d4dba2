/**
 * TEMPORARY stand-ins for the store use cases (shared/usecases/list-releases.ts,
 * release-history.ts, get-manifest.ts, import-releases.ts) until they land; the
 * routes switch to the real ones then and this file goes away.
 */
import type { Logger } from "../../shared/ports.ts";
import {
  decodeHelmStorageObject,
  describeObject,
  isHelmStorageObject,
  type KubeObject,
} from "../../shared/release/helm-codec.ts";
import type { ReleaseKey, ReleaseStatus } from "../../shared/release/model.ts";
import type { ReleaseStore } from "../../shared/store/release-store.ts";

export function listReleases(
  { store }: { store: ReleaseStore },
  q: { cluster?: string; namespace?: string; status?: ReleaseStatus; limit?: number; cursor?: string },
) {
  return store.listReleases(
    { cluster: q.cluster, namespace: q.namespace, status: q.status },
    { limit: q.limit, cursor: q.cursor },
  );
}

export function releaseHistory(
  { store }: { store: ReleaseStore },
  key: ReleaseKey,
  o: { max?: number; cursor?: string },
) {
  return store.history(key, { limit: o.max, cursor: o.cursor });
}

export async function getManifest({ store }: { store: ReleaseStore }, key: ReleaseKey, revision?: number) {
  const release = revision === undefined ? await store.getLatest(key) : await store.getRevision(key, revision);
  return release.manifest;
}

export async function importReleases(
  { store }: { store: ReleaseStore; logger?: Logger },
  { cluster, document }: { cluster: string; document: unknown },
) {
  const doc = document as { kind?: string; items?: unknown[] };
  const objects = doc?.kind?.endsWith("List") && Array.isArray(doc.items) ? doc.items : [document];
  const summary = { imported: 0, unchanged: 0, skipped: 0, failed: 0, results: [] as Record<string, unknown>[] };
  for (const object of objects) {
    const name = describeObject(object);
    if (!isHelmStorageObject(object)) {
      summary.skipped++;
      summary.results.push({ object: name, outcome: "skipped" });
      continue;
    }
    try {
      const outcome = await store.putRevision(cluster, decodeHelmStorageObject(object as KubeObject));
      if (outcome === "unchanged") summary.unchanged++;
      else summary.imported++;
      summary.results.push({ object: name, outcome });
    } catch (error) {
      summary.failed++;
      summary.results.push({ object: name, outcome: "failed", error: (error as Error).message });
    }
  }
  return summary;
}
