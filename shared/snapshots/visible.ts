/**
 * A snapshot as one reader may see it (issue #38 item 3; docs/security.md "What each caller sees"). The audits read
 * every object of a release, wherever its manifest puts it, and the snapshot keeps what they read; a reader not
 * granted some of those namespaces (clusters/namespace-access.ts) gets the snapshot without them: its resources,
 * missing entries, drift and change events filtered, the status text as a caller granted only the release's
 * namespace sees it (`ownText`, recorded by the audit), and a count of what was left out. The verdict and drift
 * figures every reader sees are already the release's own namespace's (audit/observation.ts).
 *
 * Every read path of snapshots (show, its text, the diff, status?at, a release's listing and timeline, on the API,
 * the dashboard's mount and chat) goes through the use cases that call this, so no adapter can forget it.
 */
import type { NamespaceAccess } from "../clusters/namespace-access.ts";
import type { Change, Snapshot, SnapshotMissing, SnapshotResource } from "./model.ts";

/** Objects left out of a snapshot for its reader: counted, nothing else said of them. */
export interface OutsideAccess {
  resources: number;
}

export type VisibleSnapshot<T extends Snapshot> = T & { outsideAccess?: OutsideAccess };

/** What a reader sees of a text recorded before texts were kept per audience, when it holds objects outside. */
export const WITHHELD_TEXT =
  "(the status text of this snapshot is withheld: it shows resources in namespaces your access does not cover; the structured form lists what you may see)\n";

/** MISSING reasons that involve no read of the object (no data of anyone's): they stay with the release. */
const NOT_READ = new Set<SnapshotMissing["reason"]>(["unknown kind", "not read in time", "error"]);

export function visibleSnapshot<T extends Snapshot>(
  snapshot: T,
  sees: NamespaceAccess | undefined,
): VisibleSnapshot<T> {
  if (!sees) return snapshot;
  const resourceSeen = (r: Pick<SnapshotResource, "namespace">) => sees(r.namespace);
  // A missing entry without a namespace is cluster-scoped only when the API server answered for it.
  const missingSeen = (m: SnapshotMissing) => (m.namespace === undefined ? NOT_READ.has(m.reason) : sees(m.namespace));
  const resources = snapshot.resources.filter(resourceSeen);
  const missing = snapshot.missing.filter(missingSeen);
  const drift = snapshot.drift?.filter(resourceSeen);
  const hidden = snapshot.resources.length - resources.length + (snapshot.missing.length - missing.length);
  if (hidden === 0 && drift?.length === snapshot.drift?.length) return snapshot;

  const visible: VisibleSnapshot<T> = {
    ...snapshot,
    resources,
    missing,
    changes: visibleChanges(snapshot, resourceSeen, missingSeen, sees),
    // The counts of what is shown (the recorded ones would tell how many hidden objects were missing).
    counters: { ...snapshot.counters, resources: resources.length, missing: missing.length },
    outsideAccess: { resources: hidden },
  };
  if (drift) visible.drift = drift;
  if (drift && drift.length !== snapshot.drift?.length) delete visible.driftTotal;
  delete visible.ownText;
  if (snapshot.text !== undefined) visible.text = snapshot.ownText ?? WITHHELD_TEXT;
  return visible;
}

/** `v1/ConfigMap name (namespace)` / `v1/ConfigMap name` (+ ` field` for drift), as changes.ts writes subjects. */
const SUBJECT = /^(\S+\/\S+) (\S+)(?: \(([^)]+)\))?(?: |$)/;

/**
 * The change events about what the reader may see. A subject naming its namespace is kept when that namespace is
 * seen; one without (a cluster-scoped object, or a MISSING entry, whose key has none) only when it is an object of
 * this snapshot the reader sees and no hidden object has the same kind and name. Events without a subject (health,
 * revision, status, reachability) are the release's own.
 */
function visibleChanges(
  snapshot: Snapshot,
  resourceSeen: (r: Pick<SnapshotResource, "namespace">) => boolean,
  missingSeen: (m: SnapshotMissing) => boolean,
  sees: NamespaceAccess,
): Change[] {
  const seenNames = new Set<string>();
  const hiddenNames = new Set<string>();
  for (const r of snapshot.resources) (resourceSeen(r) ? seenNames : hiddenNames).add(briefOf(r));
  for (const m of snapshot.missing) (missingSeen(m) ? seenNames : hiddenNames).add(briefOf(m));
  return snapshot.changes.filter((change) => {
    if (change.subject === undefined) return true;
    const match = SUBJECT.exec(change.subject);
    if (!match) return false;
    if (match[3] !== undefined) return sees(match[3]);
    const brief = `${match[1]} ${match[2]}`;
    return seenNames.has(brief) && !hiddenNames.has(brief);
  });
}

function briefOf(entry: { apiVersion?: string; kind?: string; name?: string }): string {
  return `${entry.apiVersion ? `${entry.apiVersion.split("/").pop()}/` : ""}${entry.kind ?? "?"} ${entry.name ?? ""}`;
}
