/**
 * The subjects whose attribution is kept, built from what the product already reads: one function per kind of
 * subject, so whoever enqueues a subject (the audit and sync workers) and whoever shows it (the status, history,
 * dashboard, chat) compute the same `attributionKey`. What gets enqueued: a revision the release sync imported new
 * (the create of its storage object), and the drift writes an audit's status report shows; the worker
 * (attribute.ts) looks them up later.
 */
import type { DriftedField, DriftReport } from "../drift/types.ts";
import type { Logger } from "../ports.ts";
import type { ReleaseKey } from "../release/model.ts";
import {
  type AttributionStore,
  type AttributionSubject,
  attributionKey,
  type RevisionSubject,
  type WriteSubject,
} from "./attribution.ts";

/**
 * The write a drifted field names: its last non-Helm manager's managedFields entry (manager, subresource, time) on
 * the live object. None when the field has no such writer (a webhook, a removed field) or no time (a scale
 * subresource entry often has none): there is nothing to look up.
 */
export function driftWriteSubject(release: ReleaseKey, field: DriftedField): WriteSubject | undefined {
  if (!field.changedBy || !field.changedAt || field.helmRevision !== undefined) return undefined;
  return {
    type: "write",
    cluster: release.cluster,
    namespace: release.namespace,
    release: release.name,
    apiVersion: field.apiVersion,
    kind: field.kind,
    name: field.name,
    ...(field.namespace ? { objectNamespace: field.namespace } : {}),
    manager: field.changedBy,
    ...(field.operation ? { operation: field.operation } : {}),
    ...(field.subresource ? { subresource: field.subresource } : {}),
    at: field.changedAt,
  };
}

/**
 * The writes a release's drift shows, to enqueue (the audit's release step): one per object, manager and time
 * (several fields one patch changed are one write). Not a known benign controller's (an HPA scaling: a controller,
 * not a person, writing again every few minutes), nor any `driftWriteSubject` has none for.
 */
export function driftWriteSubjects(release: ReleaseKey, drift: DriftReport | undefined): WriteSubject[] {
  const writes = new Map<string, WriteSubject>();
  for (const field of drift?.fields ?? []) {
    const subject = field.benign ? undefined : driftWriteSubject(release, field);
    if (subject) writes.set(attributionKey(subject), subject);
  }
  return [...writes.values()];
}

/**
 * The writes an audit enqueues: those of the release's own namespace (`ownNamespaceView` when the read reached
 * further), as the snapshot keeps its drift (audit/observation.ts). Who changed an object of another namespace that
 * a manifest names is never looked up for this release, so never shown to its readers.
 */
export function auditedDriftWrites(
  release: ReleaseKey,
  report: { drift?: DriftReport; ownNamespaceView?: { drift?: DriftReport } },
): WriteSubject[] {
  return driftWriteSubjects(release, (report.ownNamespaceView ?? report).drift);
}

/**
 * A revision the sync imported new: its storage object's kind (Helm's driver) and creationTimestamp (the lookup's
 * window).
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
