/**
 * What gets attributed (docs/who.md), in one place: a revision the release sync imported new (the create of its
 * storage object), and the drift writes an audit's status report shows (a manager other than Helm, at a time).
 * The sync and the audit enqueue what these return; the worker (attribute.ts) looks them up later.
 */
import type { DriftReport } from "../drift/types.ts";
import type { Logger } from "../ports.ts";
import {
  type AttributionStore,
  type AttributionSubject,
  attributionKey,
  type RevisionSubject,
  type WriteSubject,
} from "./attribution.ts";

/**
 * A revision the sync imported new: its storage object's kind (Helm's driver) and creationTimestamp (the lookup's
 * window; the revision's own time when the object has none).
 */
export function revisionSubject(
  cluster: string,
  revision: { namespace: string; release: string; revision: number },
  object: unknown,
  /** When the object says nothing (a real API server always sets creationTimestamp): when the sync saw it. */
  seenAt: Date,
): RevisionSubject {
  const o = (object ?? {}) as { kind?: unknown; metadata?: { creationTimestamp?: unknown } };
  const created = o.metadata?.creationTimestamp;
  return {
    type: "revision",
    cluster,
    namespace: revision.namespace,
    release: revision.release,
    revision: revision.revision,
    storageKind: o.kind === "ConfigMap" ? "ConfigMap" : "Secret",
    createdAt: typeof created === "string" && Number.isFinite(Date.parse(created)) ? created : seenAt.toISOString(),
  };
}

/**
 * The writes a release's drift shows, one per object, manager and time (several fields one patch changed are one
 * write). Not attributed: a field with no manager or no time (nothing to match), a known benign controller's
 * (an HPA scaling: a controller, not a person, writing again every few minutes), and Helm's own later revision's
 * write (that revision's attribution names who).
 */
export function driftWriteSubjects(
  release: { cluster: string; namespace: string; name: string },
  drift: DriftReport | undefined,
): WriteSubject[] {
  const writes = new Map<string, WriteSubject>();
  for (const field of drift?.fields ?? []) {
    if (!field.changedBy || !field.changedAt || field.benign || field.helmRevision !== undefined) continue;
    const subject: WriteSubject = {
      type: "write",
      cluster: release.cluster,
      namespace: release.namespace,
      release: release.name,
      apiVersion: field.apiVersion,
      kind: field.kind,
      name: field.name,
      manager: field.changedBy,
      at: field.changedAt,
    };
    if (field.namespace) subject.objectNamespace = field.namespace;
    if (field.operation) subject.operation = field.operation;
    if (field.subresource) subject.subresource = field.subresource;
    writes.set(attributionKey(subject), subject);
  }
  return [...writes.values()];
}

/**
 * Subjects into the attribution queue, for the sync (new revisions) and the audit (drift writes): a failure is
 * logged, never theirs (who made a change is extra to what they do). Nothing to do without a store.
 */
export async function enqueueForAttribution(
  deps: { attributions?: AttributionStore; logger: Logger },
  subjects: readonly AttributionSubject[],
  now: Date,
): Promise<void> {
  if (!deps.attributions || subjects.length === 0) return;
  try {
    await deps.attributions.enqueue(subjects, now);
  } catch (error) {
    deps.logger.warn("changes could not be enqueued for attribution", {
      subjects: subjects.length,
      error: (error as Error)?.name,
    });
  }
}
