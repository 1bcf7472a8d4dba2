import { type MissingEntry, RELATED_PODS_KEY, type ResourceEntry, type StatusReport } from "../../status/report.ts";
import { formatCell, visibleColumns } from "../tables/kubectl-printer.ts";
import { driftHealthLines, driftObjectKey, driftTable } from "./drift.ts";
import { eventsTables, whyTables } from "./why.ts";

/**
 * The status text's `==> KEY` sections as data, each decision about them taken here once: the text prints them
 * (text.ts), the JSON carries them (`groups`, json.ts), so a program (the dashboard) reads the same tables
 * without parsing the text or rebuilding Helm's group key.
 * 1. groups in Helm's install order by Kind (kind_sorter.go `InstallOrder`); kinds not in that list after it,
 *    alphabetically; equal kinds by group key; rows inside a group in manifest order; `v1/Pod(related)` last;
 * 2. one header per run of tables with the same visible columns (helm prints one per object);
 * 3. then `MISSING`, `DRIFT` and (when health is shown) `HEALTH`: the resources that are not Current or drifted,
 *    `WHY`: their cause chains (and log excerpts where asked for), `EVENTS`: the events about the release.
 */

/** A table as printed: upper-cased headers of the visible columns, every cell formatted as kubectl prints it. */
export interface StatusTable {
  columns: string[];
  rows: string[][];
}

/** One `==> KEY` section. */
export interface StatusGroup {
  /** Helm's group key (`v1/Deployment`, `v1/Pod(related)`), or `MISSING`, `DRIFT`, `HEALTH`, `WHY`, `EVENTS`. */
  key: string;
  /** One table, or more where the visible columns change (two kinds of two API groups under one key). */
  tables: StatusTable[];
}

/** Helm's `InstallOrder` (pkg/release/v1/util/kind_sorter.go). */
export const INSTALL_ORDER = [
  "PriorityClass",
  "Namespace",
  "NetworkPolicy",
  "ResourceQuota",
  "LimitRange",
  "PodSecurityPolicy",
  "PodDisruptionBudget",
  "ServiceAccount",
  "Secret",
  "SecretList",
  "ConfigMap",
  "StorageClass",
  "PersistentVolume",
  "PersistentVolumeClaim",
  "CustomResourceDefinition",
  "ClusterRole",
  "ClusterRoleList",
  "ClusterRoleBinding",
  "ClusterRoleBindingList",
  "Role",
  "RoleList",
  "RoleBinding",
  "RoleBindingList",
  "Service",
  "DaemonSet",
  "Pod",
  "ReplicationController",
  "ReplicaSet",
  "Deployment",
  "HorizontalPodAutoscaler",
  "StatefulSet",
  "Job",
  "CronJob",
  "IngressClass",
  "Ingress",
  "APIService",
  "MutatingWebhookConfiguration",
  "ValidatingWebhookConfiguration",
];
const RANK = new Map(INSTALL_ORDER.map((kind, i) => [kind, i]));

export function compareGroups(kindA: string, keyA: string, kindB: string, keyB: string): number {
  const rankA = RANK.get(kindA) ?? INSTALL_ORDER.length;
  const rankB = RANK.get(kindB) ?? INSTALL_ORDER.length;
  if (rankA !== rankB) return rankA - rankB;
  if (kindA !== kindB) return kindA < kindB ? -1 : 1;
  return keyA < keyB ? -1 : keyA > keyB ? 1 : 0;
}

/** Every section of the status text, in its order (`health: false`: no HEALTH section). */
export function statusGroups(report: StatusReport, options: { health?: boolean } = {}): StatusGroup[] {
  const byKey = new Map<string, ResourceEntry[]>();
  for (const entry of [...report.resources].sort((a, b) => a.index - b.index)) {
    const list = byKey.get(entry.groupKey) ?? [];
    list.push(entry);
    byKey.set(entry.groupKey, list);
  }
  const keys = [...byKey.keys()].sort((a, b) => compareGroups(byKey.get(a)![0].kind, a, byKey.get(b)![0].kind, b));
  const groups: StatusGroup[] = keys.map((key) => ({ key, tables: runs(byKey.get(key)!) }));
  if (report.relatedPods.length > 0) {
    groups.push({
      key: RELATED_PODS_KEY,
      tables: runs(report.relatedPods.map((pods) => ({ columns: pods.columns, rows: pods.rows }))),
    });
  }
  if (report.missing.length > 0) groups.push({ key: "MISSING", tables: [missingTable(report.missing)] });
  const drift = driftTable(report);
  if (drift) groups.push({ key: "DRIFT", tables: [drift] });
  const health = (options.health ?? true) ? healthTable(report) : undefined;
  if (health) groups.push({ key: "HEALTH", tables: [health] });
  // Why those are not Current, and the events that say so (why.ts), with the health.
  const why = (options.health ?? true) ? whyTables(report) : undefined;
  if (why) groups.push({ key: "WHY", tables: why });
  const events = (options.health ?? true) ? eventsTables(report) : undefined;
  if (events) groups.push({ key: "EVENTS", tables: events });
  return groups;
}

/** Helm's short kind of a resource: its version without the API group, then the kind (`v1/Deployment`). */
const shortKind = (entry: { apiVersion: string; kind: string }) => `${entry.apiVersion.split("/").pop()}/${entry.kind}`;

/**
 * One table for consecutive server Tables with the same visible columns; a new one where the columns change
 * (two kinds from different API groups can share a group key). A run without rows prints nothing (kubectl).
 */
function runs(tables: { columns: ResourceEntry["columns"]; rows: unknown[][] }[]): StatusTable[] {
  const out: StatusTable[] = [];
  let signature = "";
  for (const table of tables) {
    const visible = visibleColumns(table.columns);
    const columns = visible.map((i) => table.columns[i].name.toUpperCase());
    const rows = table.rows.map((row) => visible.map((i) => formatCell(row[i])));
    const next = JSON.stringify(visible.map((i) => table.columns[i].name));
    if (next === signature && out.length > 0) out[out.length - 1].rows.push(...rows);
    else out.push({ columns, rows });
    signature = next;
  }
  return out.filter((table) => table.rows.length > 0);
}

function missingTable(missing: MissingEntry[]): StatusTable {
  const rows = missing.map((entry) => [
    entry.apiVersion && entry.kind
      ? shortKind({ apiVersion: entry.apiVersion, kind: entry.kind })
      : (entry.kind ?? "<unknown>"),
    entry.name ?? "<unknown>",
    formatCell(reasonText(entry)),
  ]);
  return { columns: ["KIND", "NAME", "REASON"], rows };
}

function reasonText(entry: MissingEntry): string {
  switch (entry.reason) {
    case "not found":
    case "forbidden":
    case "not read in time":
      return entry.reason;
    default:
      return entry.message ? `${entry.reason}: ${entry.message}` : entry.reason;
  }
}

/** The resources that are not Current, or drifted outside Helm: the status's verdict resource by resource. */
function healthTable(report: StatusReport): StatusTable | undefined {
  const driftLines = driftHealthLines(report.drift);
  const unhealthy = report.health.resources.filter(
    (entry) => entry.status !== "Current" || driftLines.has(driftObjectKey(entry)),
  );
  if (unhealthy.length === 0) return undefined;
  const rows = unhealthy.map((entry) => [
    shortKind(entry),
    entry.name,
    entry.status,
    formatCell(
      [entry.status !== "Current" ? entry.message : "", driftLines.get(driftObjectKey(entry)) ?? ""]
        .filter(Boolean)
        .join("; "),
    ),
  ]);
  return { columns: ["KIND", "NAME", "STATUS", "MESSAGE"], rows };
}
