import type { Hook, ReleaseInfo } from "../../release/model.ts";
import {
  type Freshness,
  type MissingEntry,
  RELATED_PODS_KEY,
  type StatusCounters,
  type StatusDrift,
  type StatusReport,
} from "../../status/report.ts";
import type { Cause } from "../../why/causes.ts";
import type { ReleaseEvents } from "../../why/events.ts";
import type { StructuredFormat } from "../formats.ts";
import { renderJson, renderYaml } from "../index.ts";
import { isZeroTime } from "../time/helm-time.ts";
import { type StatusGroup, statusGroups } from "./groups.ts";

export type { StatusGroup, StatusTable } from "./groups.ts";

/**
 * `-o json` / `-o yaml`: Helm v4's release shape (helm-status.md §5) with
 * `info.resources` holding the live objects per group key and one PodList per
 * related-pods selector; `chart` and `config` stripped like Helm strips them.
 * Then the product's own fields (docs/status.md "JSON", the OpenAPI schema
 * `StatusDocument`): cluster, observedAt, health, missing, complete, counters,
 * drift, freshness, and `groups`: the text's `==> ` sections as data. Secret
 * values are already redacted in the report (live objects and manifests);
 * nothing here can add them back.
 */

/** Helm's `info`, as `helm status -o json` prints it (zero times left out). */
export interface StatusDocumentInfo extends ReleaseInfo {
  /** The live objects per group key (sorted keys, like Go's encoding/json); absent when none was read. */
  resources?: Record<string, unknown[]>;
}

/** The status as JSON or YAML: what the API's `?output=json`, the CLI's `-o json` and the dashboard read. */
export interface StatusDocument {
  // Helm's release shape, in its field order.
  name: string;
  info: StatusDocumentInfo;
  manifest?: string;
  hooks?: Hook[];
  version: number;
  namespace: string;
  apply_method?: string;
  // The product's additions.
  cluster: string;
  observedAt: string;
  health: StatusReport["health"];
  missing: MissingEntry[];
  complete: boolean;
  counters: StatusCounters;
  drift?: StatusDrift;
  /** `audit logs are off for <cluster>: ...` (docs/who.md). */
  auditLogging?: string;
  freshness?: Freshness;
  /** How many of the release's objects this caller's access does not cover, not shown (docs/security.md). */
  outsideAccess?: { resources: number };
  /** Why the resources not Current are so (docs/status.md "WHY"). */
  causes?: Cause[];
  /** The Warning events about the release's objects (docs/status.md "EVENTS"). */
  events?: ReleaseEvents;
  /** The status text's `==> KEY` sections (resource groups, MISSING, DRIFT, HEALTH, WHY, EVENTS) as data, in order. */
  groups: StatusGroup[];
}

export function statusDocument(report: StatusReport): StatusDocument {
  const { release } = report;
  const info = release.info;
  const infoOut: StatusDocumentInfo = {} as StatusDocumentInfo;
  if (info.first_deployed && !isZeroTime(info.first_deployed)) infoOut.first_deployed = info.first_deployed;
  if (info.last_deployed && !isZeroTime(info.last_deployed)) infoOut.last_deployed = info.last_deployed;
  if (info.deleted && !isZeroTime(info.deleted)) infoOut.deleted = info.deleted;
  if (info.description) infoOut.description = info.description;
  infoOut.status = info.status;
  if (info.notes) infoOut.notes = info.notes;
  const resources = resourcesByGroup(report);
  if (Object.keys(resources).length > 0) infoOut.resources = resources;

  // Built field by field: the key order is Helm's (then ours), and absent fields stay absent.
  const document = { name: release.name, info: infoOut } as StatusDocument;
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
  if (report.auditLogging) document.auditLogging = report.auditLogging;
  if (report.freshness) document.freshness = report.freshness;
  if (report.outsideAccess) document.outsideAccess = report.outsideAccess;
  if (report.causes) document.causes = report.causes;
  if (report.events) document.events = report.events;
  document.groups = statusGroups(report);
  return document;
}

/**
 * The status document, built once, as `json` (one compact line plus `\n`, like Helm's json.Encoder) or `yaml`
 * (sigs.k8s.io/yaml's bytes, like `helm status -o yaml`): shared/render's JSON and YAML policies.
 */
export function renderStatusDocument(report: StatusReport, format: StructuredFormat): string {
  const document = statusDocument(report);
  return format === "json" ? renderJson(document) : renderYaml(document);
}

export const renderStatusJson = (report: StatusReport): string => renderStatusDocument(report, "json");
export const renderStatusYaml = (report: StatusReport): string => renderStatusDocument(report, "yaml");

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
