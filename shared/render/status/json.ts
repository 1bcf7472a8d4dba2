import { RELATED_PODS_KEY, type StatusReport } from "../../status/report.ts";
import { renderJson, renderYaml } from "../index.ts";
import { isZeroTime } from "../time/helm-time.ts";

/**
 * `-o json` / `-o yaml`: Helm v4's release shape (helm-status.md §5) with
 * `info.resources` holding the live objects per group key and one PodList per
 * related-pods selector; `chart` and `config` stripped like Helm strips them.
 * Then the product's own fields: cluster, observedAt, health, missing,
 * complete, counters. Secret values are already redacted in the report (live
 * objects and manifests); nothing here can add them back.
 */

export function statusDocument(report: StatusReport): Record<string, unknown> {
  const { release } = report;
  const info = release.info;
  const infoOut: Record<string, unknown> = {};
  if (info.first_deployed && !isZeroTime(info.first_deployed)) infoOut.first_deployed = info.first_deployed;
  if (info.last_deployed && !isZeroTime(info.last_deployed)) infoOut.last_deployed = info.last_deployed;
  if (info.deleted && !isZeroTime(info.deleted)) infoOut.deleted = info.deleted;
  if (info.description) infoOut.description = info.description;
  infoOut.status = info.status;
  if (info.notes) infoOut.notes = info.notes;
  const resources = resourcesByGroup(report);
  if (Object.keys(resources).length > 0) infoOut.resources = resources;

  const document: Record<string, unknown> = { name: release.name, info: infoOut };
  if (release.manifest) document.manifest = release.manifest;
  if (release.hooks.length > 0) document.hooks = release.hooks;
  document.version = release.version;
  document.namespace = release.namespace;
  if (release.apply_method) document.apply_method = release.apply_method;

  document.cluster = report.cluster;
  document.observedAt = report.observedAt;
  document.health = report.health;
  document.missing = report.missing;
  document.complete = report.complete;
  document.counters = report.counters;
  if (report.drift) document.drift = report.drift;
  if (report.freshness) document.freshness = report.freshness;
  if (report.outsideAccess) document.outsideAccess = report.outsideAccess;
  return document;
}

/** One compact line plus `\n`, like Helm's json.Encoder (shared/render's JSON policy). */
export function renderStatusJson(report: StatusReport): string {
  return renderJson(statusDocument(report));
}

/** sigs.k8s.io/yaml's bytes (shared/render's YAML policy), like `helm status -o yaml`. */
export function renderStatusYaml(report: StatusReport): string {
  return renderYaml(statusDocument(report));
}

/** Go's encoding/json sorts map keys: group keys, and every key inside the live objects. */
function resourcesByGroup(report: StatusReport): Record<string, unknown[]> {
  const groups = new Map<string, unknown[]>();
  for (const entry of [...report.resources].sort((a, b) => a.index - b.index)) {
    if (!entry.object) continue;
    const list = groups.get(entry.groupKey) ?? [];
    list.push(sortKeys(entry.object));
    groups.set(entry.groupKey, list);
  }
  if (report.relatedPods.length > 0) {
    groups.set(
      RELATED_PODS_KEY,
      report.relatedPods.map((pods) => ({
        apiVersion: "v1",
        items: pods.objects.map(sortKeys),
        kind: "PodList",
        metadata: pods.listMetadata,
      })),
    );
  }
  return Object.fromEntries([...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((key) => [key, sortKeys(record[key])]),
  );
}
