/**
 * One LIST chain of a sync run (one driver, all namespaces or one): page by
 * page, plan (chain.ts), GET and import what changed, remove what is gone,
 * write the object records, save the cursor. A `410 Gone` restarts the chain
 * (objects already recorded come back unchanged: only LIST pages are paid
 * again); a `403` ends it as forbidden; the deadline or the request budget
 * stop it with the cursor saved at the last page fully handled.
 */

import { pool } from "../concurrency.ts";
import { importStorageObject } from "../ingest/storage-object.ts";
import type { KubeSession } from "../kube/session.ts";
import type { Logger } from "../ports.ts";
import type { ReleaseKey } from "../release/model.ts";
import { type RevisionSource, storageObjectName } from "../release/storage-identity.ts";
import type { ReleaseStore } from "../store/release-store.ts";
import { storedSourceOf } from "../store/revision-content.ts";
import type { SyncCursor, SyncedObject, SyncStateStore } from "../store/sync-state.ts";
import type { AttributionStore, RevisionSubject } from "../who/attribution.ts";
import { enqueueForAttribution, revisionSubject } from "../who/subjects.ts";
import { type Chain, objectId, planPage, refusedRecord } from "./chain.ts";
import { getStorageObject, KIND_OF, listPage, listPath, type StorageEntry, storageIdentity } from "./storage-reads.ts";
import { recordFailure, recordRemoval, type SyncSummary } from "./summary.ts";

export interface ChainContext {
  store: ReleaseStore;
  syncState: SyncStateStore;
  session: KubeSession;
  logger: Logger;
  /** Every record of the cluster, kept current as pages are handled. */
  records: Map<string, SyncedObject>;
  summary: SyncSummary;
  now: () => number;
  renewLease: () => Promise<void>;
  /** Where each revision imported new is enqueued for attribution (docs/who.md); absent: not attributed. */
  attributions?: AttributionStore;
}

export interface ChainOptions {
  cluster: string;
  chain: Chain;
  start?: Pick<SyncCursor, "continueToken" | "after">;
  pageSize: number;
  concurrency: number;
  maxRequests: number;
  saveCursor: (position: Pick<SyncCursor, "continueToken" | "after">) => Promise<void>;
  onProgress?: (summary: SyncSummary) => void;
}

export type ChainOutcome = "done" | "forbidden" | "stopped";

/** A chain of 10,000 objects in pages of 500 is 20 pages; this bounds a server that never ends a chain. */
const MAX_PAGES = 10_000;
const MAX_RESTARTS = 3;
export const HELM_SELECTOR = "owner=helm";

export async function runChain(ctx: ChainContext, options: ChainOptions): Promise<ChainOutcome> {
  const { session, summary, records } = ctx;
  const { chain } = options;
  const where = `${chain.driver} (${chain.namespace ? `namespace ${chain.namespace}` : "all namespaces"})`;
  let after = options.start?.after ?? "";
  let token = options.start?.continueToken;
  let restarts = 0;
  let unorderedNoted = false;
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    if (session.deadlineReached || session.counters.requests >= options.maxRequests) {
      await options.saveCursor({ continueToken: token, after });
      return "stopped";
    }
    const path = listPath(chain.driver, chain.namespace, HELM_SELECTOR, {
      limit: options.pageSize,
      continueToken: token,
    });
    const answer = await listPage(session, path);
    if (answer.kind !== "deadline") summary.bytes += answer.bytes;
    if (answer.kind === "deadline") {
      await options.saveCursor({ continueToken: token, after });
      return "stopped";
    }
    // 410 Gone, or another 4xx to a continue token: the chain starts again from its first key.
    if (answer.kind === "expired") {
      summary.restarts += 1;
      if (answer.refused) summary.notes.push(`LIST ${where}: continue token refused (${answer.refused}); restarted`);
      if (++restarts > MAX_RESTARTS) {
        summary.notes.push(`LIST ${where}: continue tokens kept being refused (${MAX_RESTARTS} restarts); stopped`);
        await options.saveCursor({ after: "" });
        return "stopped";
      }
      // Start the LIST again; removals are decided again from the first key.
      token = undefined;
      after = "";
      continue;
    }
    if (answer.kind === "forbidden") {
      summary.forbidden.push(`list ${where}: ${answer.message}`);
      return "forbidden";
    }
    if (answer.kind === "failed") {
      summary.notes.push(`LIST ${where}: ${answer.message}`);
      await options.saveCursor({ continueToken: token, after });
      return "stopped";
    }
    summary.listPages += 1;
    summary.listed += answer.entries.length;
    const last = answer.continueToken === undefined;
    const plan = planPage(chain, answer.entries, records, after, last);
    if (plan.unordered && !unorderedNoted) {
      unorderedNoted = true;
      summary.notes.push(`LIST ${where} was not in key order: removals were not decided for it in this run`);
    }
    if (plan.foreign > 0) {
      summary.notes.push(`LIST ${where}: ${plan.foreign} object(s) of other namespaces in the answer, ignored`);
    }
    if (plan.duplicates > 0) summary.notes.push(`LIST ${where}: ${plan.duplicates} object(s) listed twice in a page`);
    const puts: SyncedObject[] = [];
    const deletes: string[] = [];
    for (const { record } of plan.unchanged) {
      if (record.error)
        recordFailure(summary, { ...failureOf(record), error: `${record.error} (unchanged since an earlier run)` });
      else summary.unchanged += 1;
    }
    for (const entry of plan.refuse) {
      const record = refusedRecord(chain, entry);
      recordFailure(summary, { ...failureOf(record), error: record.error ?? "" });
      puts.push(record);
    }
    let interrupted = false;
    const created: RevisionSubject[] = [];
    await pool(
      [
        ...plan.fetch.map((entry) => async () => {
          const outcome = await fetchAndImport(ctx, options, entry, created);
          if (outcome === "deadline") interrupted = true;
          else if (outcome) puts.push(outcome);
        }),
        ...plan.relabel.map(({ entry, record }) => async () => {
          const outcome = await relabel(ctx, options, entry, record, created);
          if (outcome === "deadline") interrupted = true;
          else if (outcome) puts.push(outcome);
        }),
      ],
      options.concurrency,
    );
    for (const record of plan.removed) {
      await removeSynced(ctx, options.cluster, record);
      deletes.push(record.object);
    }
    // Before the page's records: a run killed after this loses no revision to attribute (enqueue is idempotent).
    await enqueueForAttribution(ctx, created, new Date(ctx.now()));
    await ctx.syncState.writeObjects(options.cluster, puts, deletes);
    for (const object of deletes) records.delete(object);
    for (const record of puts) records.set(record.object, record);
    options.onProgress?.(summary);
    if (interrupted) {
      // This page is listed again next time; what was imported from it comes back unchanged.
      await options.saveCursor({ continueToken: token, after });
      return "stopped";
    }
    if (last) return "done";
    after = plan.coveredTo;
    token = answer.continueToken;
    // Saved when the page changed something (a kill -9 then loses no GET); an unchanged page costs only a LIST again.
    if (puts.length > 0 || deletes.length > 0) await options.saveCursor({ continueToken: token, after });
    await ctx.renewLease();
  }
  summary.notes.push(`LIST ${where}: more than ${MAX_PAGES} pages; stopped`);
  return "stopped";
}

/** GET one new or changed object and import it; the record to keep, undefined (nothing to record), or "deadline". */
async function fetchAndImport(
  ctx: ChainContext,
  options: ChainOptions,
  entry: StorageEntry,
  /** The revisions stored new, for attribution. */
  created: RevisionSubject[],
): Promise<SyncedObject | undefined | "deadline"> {
  const { summary } = ctx;
  const object = objectId(options.chain.driver, entry.key);
  const identity = storageIdentity(entry);
  const base: SyncedObject = {
    object,
    uid: entry.uid,
    resourceVersion: entry.resourceVersion,
    namespace: entry.namespace,
    release: identity?.release ?? "",
    revision: identity?.revision ?? 0,
    status: identity?.status ?? "unknown",
    checked: true,
  };
  const answer = await getStorageObject(ctx.session, options.chain.driver, entry);
  if (answer.kind === "deadline") return "deadline";
  summary.bytes += answer.bytes;
  if (answer.kind === "gone") return undefined; // deleted since the LIST: the next run sees it gone
  summary.fetched += 1;
  if (answer.kind === "refused") {
    recordFailure(summary, { ...failureOf(base), error: answer.message });
    // A size or syntax fault stays until the object changes; a transient one (HTTP 5xx, network) is retried.
    return /bytes, over the|not JSON/.test(answer.message) ? { ...base, error: answer.message } : undefined;
  }
  const previous = ctx.records.get(object);
  let imported = await importStorageObject(ctx, options.cluster, answer.object, "sync");
  if (imported.conflict && options.chain.driver === "configmaps" && heldBySecret(ctx.records, base)) {
    // Helm's default driver wins, as in the freshness check: a ConfigMap (which more tenants may write) of a
    // revision a Secret holds never replaces it.
    const error = `revision ${base.revision} is held by Helm's Secret of the same name; this ConfigMap does not replace it`;
    recordFailure(summary, { ...failureOf(base), error });
    return { ...base, error };
  }
  if (imported.conflict && imported.result.revision !== undefined && imported.result.release) {
    // The same revision number with other content: the object was recreated (uninstall, then install again).
    const key = releaseKeyOf(options.cluster, imported.result.release);
    if ((await ctx.store.removeRevision(key, imported.result.revision)) === "removed") {
      recordRemoval(summary, {
        release: imported.result.release,
        revision: imported.result.revision,
        origin: previous ? "sync" : "import",
        reason: "replaced by the cluster's object of the same revision (the release was installed again)",
      });
    }
    imported = await importStorageObject(ctx, options.cluster, answer.object, "sync");
  }
  const { result } = imported;
  // The object's own identity (labels and name agree: planPage checked), never the payload's.
  const record: SyncedObject = base;
  if (result.outcome === "failed" || result.outcome === "skipped") {
    const error = result.error ?? "not a Helm release object";
    recordFailure(summary, { ...failureOf(record), error });
    return { ...record, error };
  }
  if (result.outcome === "unchanged") summary.unchanged += 1;
  else if (imported.stored === "updated") summary.updated += 1;
  else summary.imported += 1;
  if (imported.stored === "created")
    created.push(revisionSubject(options.cluster, record, answer.object, new Date(ctx.now())));
  return record;
}

/** Helm rewrote only the status label to superseded: the stored revision takes that status, no GET. */
async function relabel(
  ctx: ChainContext,
  options: ChainOptions,
  entry: StorageEntry,
  record: SyncedObject,
  created: RevisionSubject[],
): Promise<SyncedObject | undefined | "deadline"> {
  const key = { cluster: options.cluster, namespace: record.namespace, name: record.release };
  let stored: Awaited<ReturnType<ReleaseStore["getRevision"]>> | undefined;
  try {
    stored = await ctx.store.getRevision(key, record.revision);
  } catch (error) {
    if ((error as Error).name !== "ReleaseNotFoundError") throw error;
  }
  if (!stored?.info) return fetchAndImport(ctx, options, entry, created);
  // The object's resourceVersion moved with its label: the provenance follows (the freshness check compares it).
  const source: RevisionSource = {
    ...(storedSourceOf(stored) ?? { kind: KIND_OF[options.chain.driver], namespace: record.namespace }),
    uid: entry.uid,
    resourceVersion: entry.resourceVersion,
    via: "sync",
  };
  const put = await ctx.store.putRevision(
    options.cluster,
    { ...stored, info: { ...stored.info, status: "superseded" } },
    source,
  );
  if (put === "unchanged") ctx.summary.unchanged += 1;
  else ctx.summary.updated += 1;
  return { ...record, resourceVersion: entry.resourceVersion, status: "superseded" };
}

async function removeSynced(ctx: ChainContext, cluster: string, record: SyncedObject): Promise<void> {
  // A refused object never filed anything: its going removes nothing.
  if (!record.release || record.revision < 1 || record.error) return;
  // Another driver's object may hold the same revision (a release moved from ConfigMaps to Secrets).
  for (const other of ctx.records.values()) {
    if (
      other !== record &&
      !other.error &&
      other.namespace === record.namespace &&
      other.release === record.release &&
      other.revision === record.revision
    )
      return;
  }
  const key = { cluster, namespace: record.namespace, name: record.release };
  if ((await ctx.store.removeRevision(key, record.revision)) === "removed") {
    recordRemoval(ctx.summary, {
      release: `${record.namespace}/${record.release}`,
      revision: record.revision,
      origin: "sync",
      reason: "its storage object is gone (helm uninstall, or --history-max pruning)",
    });
  }
}

function heldBySecret(records: ReadonlyMap<string, SyncedObject>, record: SyncedObject): boolean {
  const secret = records.get(`Secret/${record.namespace}/${storageObjectName(record.release, record.revision)}`);
  return secret !== undefined && secret.checked === true && !secret.error;
}

function failureOf(record: SyncedObject) {
  return {
    object: record.object,
    ...(record.release ? { release: `${record.namespace}/${record.release}` } : {}),
    ...(record.revision > 0 ? { revision: record.revision } : {}),
  };
}

function releaseKeyOf(cluster: string, release: string): ReleaseKey {
  const [namespace, name] = release.split("/");
  return { cluster, namespace, name };
}

export type { Logger };
