/**
 * The subjects whose attribution is kept, built from what the product already reads: one function per kind of
 * subject, so whoever enqueues a subject (the audit and sync workers) and whoever shows it (the status, history,
 * dashboard, chat) compute the same `attributionKey`.
 */
import type { DriftedField } from "../drift/types.ts";
import type { ReleaseKey } from "../release/model.ts";
import type { WriteSubject } from "./attribution.ts";

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
