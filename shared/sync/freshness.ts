/**
 * A status's freshness check (docs/status.md, "STORED"): one metadata LIST of
 * the release's own storage objects (`owner=helm,name=<release>` in its
 * namespace; ConfigMaps only when no Secret answers) in the same wave as the
 * resource GETs, telling whether the store's revision is the cluster's latest.
 * A newer revision is fetched and decoded in memory through the import's
 * checks (never written: the status role stays read-only on the store).
 */

import { decodeStorageObject } from "../ingest/storage-object.ts";
import type { KubeReader } from "../kube/reader.ts";
import { equalitySelector } from "../kube/related-pods.ts";
import type { Release } from "../release/model.ts";
import { storageObjectName } from "../release/storage-identity.ts";
import type { Freshness } from "../status/report.ts";
import { storedSourceOf } from "../store/revision-content.ts";
import { getStorageObject, listPage, listPath, type StorageDriver, storageIdentity } from "./storage-reads.ts";

export interface ClusterRevisions {
  /** The highest revision the cluster's Helm storage holds for the release (0: none). */
  latest: number;
  driver?: StorageDriver;
  objectName?: string;
  /** The latest object's `status` label, uid and resourceVersion (what a same-number rewrite changes). */
  status?: string;
  uid?: string;
  resourceVersion?: string;
}

export type RevisionsAnswer = { revisions: ClusterRevisions } | { notChecked: string };

/**
 * What a status answers for, decided once from the store's revision and the cluster's Helm storage: the stored
 * revision (`stored`), or the cluster's own object read now (`read`: a newer latest, the latest rewritten in place,
 * or a revision asked for by number that is not stored yet), with the STORED line for either; `notFound` when
 * neither has it. One LIST (in the same wave as the stored revision's GETs), then at most one GET.
 */
export type FreshestAnswer =
  | { answer: "stored"; freshness: Freshness }
  | { answer: "read"; release: Release; freshness: Freshness }
  | { answer: "notFound" };

export async function freshestRevision(
  kube: KubeReader,
  request: { cluster: string; namespace: string; name: string; revision?: number; deadline?: number },
  stored: Release | undefined,
): Promise<FreshestAnswer> {
  const check = await readClusterRevisions(kube, request);
  const wantLatest = request.revision === undefined;
  const storedVersion = stored?.version;
  // Helm rewrites its latest revision in place (uninstall --keep-history, a pending operation ending): same number.
  const rewritten = stored !== undefined && "revisions" in check && rewrittenSinceStored(stored, check.revisions);
  if (!wantLatest && storedVersion === undefined && "revisions" in check) {
    // `--revision N` of a revision not stored yet: the cluster's own object, read now like a newer latest.
    const asked = await readClusterRevision(kube, request, askedRevision(check.revisions, request));
    if ("release" in asked) {
      const answered = asked.release.version;
      const freshness = describeFreshness({ answered, asked: answered, check, askedFromCluster: true });
      return { answer: "read", release: asked.release, freshness };
    }
  }
  // The cluster's latest is not the stored one: newer (an upgrade since the sync), rewritten in place, or lower
  // (uninstalled and installed again: the stored revision is gone from the cluster). Read it now.
  let newerNotRead: string | undefined;
  const latest = "revisions" in check ? check.revisions.latest : 0;
  if (wantLatest && "revisions" in check && latest > 0 && (latest !== storedVersion || rewritten)) {
    const newer = await readClusterRevision(kube, request, check.revisions);
    if ("release" in newer) {
      const answered = newer.release.version;
      return {
        answer: "read",
        release: newer.release,
        freshness: describeFreshness({ stored: storedVersion, answered, check, rewritten }),
      };
    }
    newerNotRead = newer.failed;
  }
  if (storedVersion === undefined) return { answer: "notFound" };
  const freshness = describeFreshness({
    stored: storedVersion,
    answered: storedVersion,
    asked: wantLatest ? undefined : storedVersion,
    check,
    newerNotRead,
    rewritten: rewritten && wantLatest,
  });
  return { answer: "stored", freshness };
}

/** The storage object of the revision asked for, where the cluster keeps its latest (its driver). */
function askedRevision(revisions: ClusterRevisions, request: { name: string; revision?: number }): ClusterRevisions {
  const revision = request.revision ?? 0;
  if (revision < 1 || revision > revisions.latest || !revisions.driver) return { latest: revisions.latest };
  return { ...revisions, objectName: storageObjectName(request.name, revision) };
}

async function readClusterRevisions(
  kube: KubeReader,
  input: { cluster: string; namespace: string; name: string; deadline?: number },
): Promise<RevisionsAnswer> {
  try {
    return await kube.withSession(input.cluster, { deadline: input.deadline, concurrency: 2 }, async (session) => {
      for (const driver of ["secrets", "configmaps"] as const) {
        const selector = equalitySelector({ owner: "helm", name: input.name });
        const answer = await listPage(session, listPath(driver, input.namespace, selector));
        if (answer.kind === "forbidden") return { notChecked: `list ${driver} forbidden` };
        if (answer.kind === "deadline") return { notChecked: "not read in time" };
        if (answer.kind !== "page") return { notChecked: answer.kind === "expired" ? "LIST expired" : answer.message };
        let revisions: ClusterRevisions = { latest: 0 };
        for (const entry of answer.entries) {
          const identity = storageIdentity(entry);
          if (identity && identity.release === input.name && identity.revision > revisions.latest) {
            revisions = {
              latest: identity.revision,
              driver,
              objectName: entry.name,
              status: identity.status,
              uid: entry.uid,
              resourceVersion: entry.resourceVersion,
            };
          }
        }
        if (revisions.latest > 0) return { revisions };
      }
      return { revisions: { latest: 0 } };
    });
  } catch (error) {
    return { notChecked: (error as { publicMessage?: string }).publicMessage ?? (error as Error).message };
  }
}

/**
 * Whether Helm rewrote the stored revision in place since it was stored (same number, other object state):
 * `helm uninstall --keep-history` (→ uninstalled), a pending operation that ended (pending-upgrade → failed),
 * uninstall + install of a one-revision release. The LIST's status label against the stored status, and its
 * uid/resourceVersion against the stored revision's provenance (when it has one); a difference means read now.
 */
function rewrittenSinceStored(stored: Release, revisions: ClusterRevisions): boolean {
  if (revisions.latest !== stored.version) return false;
  if (revisions.status !== undefined && revisions.status !== (stored.info?.status ?? "unknown")) return true;
  const source = storedSourceOf(stored);
  if (!source?.resourceVersion || !revisions.resourceVersion) return false;
  if (source.uid && revisions.uid && source.uid !== revisions.uid) return true;
  return source.resourceVersion !== revisions.resourceVersion;
}

/** The cluster's newest revision, decoded in memory like an import (undefined + why when it cannot be). */
async function readClusterRevision(
  kube: KubeReader,
  input: { cluster: string; namespace: string; deadline?: number },
  revisions: ClusterRevisions,
): Promise<{ release: Release } | { failed: string }> {
  if (!revisions.driver || !revisions.objectName) return { failed: "nothing to read" };
  const driver = revisions.driver;
  const name = revisions.objectName;
  const answer = await kube.withSession(input.cluster, { deadline: input.deadline, concurrency: 1 }, (session) =>
    getStorageObject(session, driver, { namespace: input.namespace, name }),
  );
  if (answer.kind === "deadline") return { failed: "not read in time" };
  if (answer.kind === "gone") return { failed: "gone since the LIST" };
  if (answer.kind === "refused") return { failed: answer.message };
  const decoded = decodeStorageObject(answer.object);
  return decoded.release ? { release: decoded.release } : { failed: decoded.result.error ?? "not a Helm release" };
}

/** The STORED line's words and the JSON field, for every case (docs/status.md). */
export function describeFreshness(input: {
  stored?: number;
  answered: number;
  asked?: number;
  check: RevisionsAnswer;
  newerNotRead?: string;
  /** The stored revision is the cluster's latest number, rewritten in place since (rewrittenSinceStored). */
  rewritten?: boolean;
  /** The revision asked for was not stored: it was read from the cluster's own storage object. */
  askedFromCluster?: boolean;
}): Freshness {
  const { stored, answered, check } = input;
  const storedText = stored === undefined ? "none" : `revision ${stored}`;
  if ("notChecked" in check) {
    return {
      state: "not-checked",
      storedRevision: stored,
      revision: answered,
      message: `not checked (${check.notChecked})`,
    };
  }
  const latest = check.revisions.latest;
  const base = { storedRevision: stored, clusterRevision: latest, revision: answered };
  if (latest === 0) {
    return {
      ...base,
      state: "not-in-cluster",
      message: `${storedText}; the cluster's Helm storage no longer holds this release (helm: release: not found)`,
    };
  }
  if (input.askedFromCluster) {
    return {
      ...base,
      state: "read-now",
      message: `revision ${answered} as asked: not stored yet, read from the cluster now (not yet synced); the cluster's latest is revision ${latest}`,
    };
  }
  if (input.asked !== undefined) {
    return latest === input.asked
      ? { ...base, state: "matches", message: `revision ${input.asked} is the cluster's latest` }
      : {
          ...base,
          state: "asked",
          message: `revision ${input.asked} as asked; the cluster's latest is revision ${latest}`,
        };
  }
  if (stored === latest && input.rewritten) {
    return input.newerNotRead === undefined && answered === latest
      ? {
          ...base,
          state: "read-now",
          message: `revision ${latest} was rewritten in the cluster since it was stored (read now, not yet synced)`,
        }
      : {
          ...base,
          state: "cluster-newer",
          message: `revision ${latest} was rewritten in the cluster since it was stored (${input.newerNotRead ?? "not read"}: this status is the stored one)`,
        };
  }
  if (stored === latest) return { ...base, state: "matches", message: `revision ${latest} matches the cluster` };
  if (answered === latest && stored !== undefined && stored > latest) {
    return {
      ...base,
      state: "read-now",
      message: `${storedText}; the cluster holds up to revision ${latest} (installed again since: read now, not yet synced)`,
    };
  }
  if (answered === latest) {
    return {
      ...base,
      state: "read-now",
      message: `${storedText}; the cluster has revision ${latest} (read now, not yet synced)`,
    };
  }
  if (stored !== undefined && stored > latest) {
    return { ...base, state: "stored-newer", message: `${storedText}; the cluster's latest is revision ${latest}` };
  }
  return {
    ...base,
    state: "cluster-newer",
    message: `${storedText}; the cluster has revision ${latest} (${input.newerNotRead ?? "not read"}: this status is for revision ${answered})`,
  };
}
