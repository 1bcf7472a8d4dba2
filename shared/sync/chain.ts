/**
 * One page of one LIST chain, compared with what the sync remembers
 * (docs/sync.md, "incremental LIST"): which objects are new or changed (GET
 * them), which only had their `status` label rewritten to `superseded` (Helm
 * changes nothing else on an upgrade's or rollback's previous revision: the
 * stored revision is updated without a GET), which are unchanged, and which
 * records fell inside the page's key range without being listed (removed from
 * the cluster). LIST pages come in etcd key order (`namespace/name`), so a
 * page covers (after, last key]; the last page covers everything after.
 */
import { parseStorageObjectName } from "../release/storage-identity.ts";
import type { SyncedObject } from "../store/sync-state.ts";
import { KIND_OF, type StorageDriver, type StorageEntry, storageIdentity } from "./storage-reads.ts";

export interface Chain {
  driver: StorageDriver;
  /** undefined = all namespaces */
  namespace?: string;
}

export interface PagePlan {
  fetch: StorageEntry[];
  /** Same object, only its status label moved from deployed to superseded (helm upgrade, rollback). */
  relabel: { entry: StorageEntry; record: SyncedObject }[];
  unchanged: { entry: StorageEntry; record: SyncedObject }[];
  /** Labels that disagree with the object's name (or are missing): refused from the LIST alone, never read. */
  refuse: StorageEntry[];
  removed: SyncedObject[];
  /** Entries outside the chain's namespace (a server answering for more than was asked): never read. */
  foreign: number;
  /** The same object listed twice in the page: handled once. */
  duplicates: number;
  /** The page was not in key order: removals are not decided for this chain in this run. */
  unordered: boolean;
  /** The key the next page starts after. */
  coveredTo: string;
}

export const objectId = (driver: StorageDriver, key: string) => `${KIND_OF[driver]}/${key}`;
const keyOfRecord = (record: SyncedObject) => record.object.slice(record.object.indexOf("/") + 1);

export function inChain(chain: Chain, record: SyncedObject): boolean {
  return (
    record.object.startsWith(`${KIND_OF[chain.driver]}/`) &&
    (chain.namespace === undefined || record.namespace === chain.namespace)
  );
}

export function planPage(
  chain: Chain,
  entries: readonly StorageEntry[],
  records: ReadonlyMap<string, SyncedObject>,
  after: string,
  last: boolean,
): PagePlan {
  const plan: PagePlan = {
    fetch: [],
    relabel: [],
    unchanged: [],
    refuse: [],
    removed: [],
    foreign: 0,
    duplicates: 0,
    unordered: false,
    coveredTo: after,
  };
  const listed = new Set<string>();
  let previous = after;
  for (const entry of entries) {
    if (chain.namespace !== undefined && entry.namespace !== chain.namespace) {
      plan.foreign += 1;
      continue;
    }
    if (listed.has(entry.key)) {
      plan.duplicates += 1;
      continue;
    }
    listed.add(entry.key);
    if (entry.key <= previous) plan.unordered = true;
    previous = entry.key;
    const record = records.get(objectId(chain.driver, entry.key));
    const identity = storageIdentity(entry);
    const sameObject = record !== undefined && record.uid === entry.uid;
    if (sameObject && record.checked && record.resourceVersion === entry.resourceVersion) {
      // Remembered as it is, refused ones included (a tenant's mislabelled object is not read every run).
      plan.unchanged.push({ entry, record });
    } else if (!identity) {
      plan.refuse.push(entry);
    } else if (
      sameObject &&
      record.checked &&
      !record.error &&
      identity.status === "superseded" &&
      // Only upgrade and rollback supersede a deployed revision touching nothing but its status; install
      // --replace supersedes an uninstalled one and rewrites its description too (read it).
      record.status === "deployed" &&
      identity.revision === record.revision &&
      identity.release === record.release
    ) {
      plan.relabel.push({ entry, record });
    } else {
      plan.fetch.push(entry);
    }
  }
  const upTo = entries.at(-1)?.key ?? after;
  plan.coveredTo = upTo > after ? upTo : after;
  if (plan.unordered) return plan;
  for (const record of records.values()) {
    if (!inChain(chain, record)) continue;
    const key = keyOfRecord(record);
    if (key <= after || (!last && key > upTo)) continue;
    if (!listed.has(key)) plan.removed.push(record);
  }
  return plan;
}

/** The record of a listed object whose labels disagree with its name: refused from its metadata, never read. */
export function refusedRecord(chain: Chain, entry: StorageEntry): SyncedObject {
  const fromName = parseStorageObjectName(entry.name);
  return {
    object: objectId(chain.driver, entry.key),
    uid: entry.uid,
    resourceVersion: entry.resourceVersion,
    namespace: entry.namespace,
    release: fromName?.name ?? "",
    revision: fromName?.revision ?? 0,
    status: entry.labels.status ?? "unknown",
    error:
      "its name and version labels do not say what its name says (or are missing); refused without reading it " +
      "(Helm's identity rule)",
    checked: true,
  };
}
