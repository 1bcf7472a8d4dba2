import { type MissingEntry, RELATED_PODS_KEY, type ResourceEntry, type StatusReport } from "../../status/report.ts";
import { alignLines, formatCell, printTable, visibleColumns } from "../tables/kubectl-printer.ts";
import { formatAnsiC, isZeroTime, ZERO_TIME } from "../time/helm-time.ts";
import { driftHeaderLine, driftHealthLines, driftObjectKey, driftSection } from "./drift.ts";

/**
 * `helm status` text, helm v4.1.4's layout line for line (helm-status.md §4),
 * with the project target's fixes (§0):
 * 1. groups in Helm's install order by Kind (kind_sorter.go `InstallOrder`);
 *    kinds not in that list after it, alphabetically; equal kinds by group key;
 *    rows inside a group in manifest order; `v1/Pod(related)` after all groups;
 * 2. one header and one alignment per group (helm aligns each object alone);
 * 3. a `==> MISSING` section (KIND, NAME, REASON) after the groups;
 * 4. unknown kinds reported there instead of failing the whole command.
 * And one addition: `HEALTH: <overall> (<ruleset>: <summary>)` after DESCRIPTION,
 * plus a `==> HEALTH` group listing the resources that are not Current, and `STORED: …` (the store's revision
 * against the cluster's Helm storage, docs/status.md) after it.
 */

export interface TextOptions {
  /** Print the HEALTH line and group (default true). */
  health?: boolean;
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

/** The `STORED:` line's one wording (text, Slack, Teams): the stored revision against the cluster's. */
export function storedLine(freshness: NonNullable<StatusReport["freshness"]>): string {
  return `STORED: ${freshness.message}`;
}

/**
 * The one line about a release's objects the caller may not read (docs/security.md "What each caller sees"): a
 * count, nothing of their kinds, names or namespaces.
 */
export function outsideAccessLine(outside: NonNullable<StatusReport["outsideAccess"]>): string {
  const n = outside.resources;
  return `OUTSIDE ACCESS: ${n} ${n === 1 ? "resource" : "resources"} in namespaces your access does not cover (or cluster-scoped), not shown`;
}

export function renderStatusText(report: StatusReport, options: TextOptions = {}): string {
  const showHealth = options.health ?? true;
  const { release } = report;
  const info = release.info;
  let out = `NAME: ${release.name}\n`;
  if (info.last_deployed && !isZeroTime(info.last_deployed))
    out += `LAST DEPLOYED: ${formatAnsiC(info.last_deployed)}\n`;
  out += `NAMESPACE: ${release.namespace}\n`;
  out += `STATUS: ${info.status}\n`;
  out += `REVISION: ${release.version}\n`;
  out += `DESCRIPTION: ${info.description ?? ""}\n`;
  if (showHealth) out += `HEALTH: ${report.health.overall} (${report.health.ruleset}: ${report.health.message})\n`;
  if (showHealth && report.freshness) out += `${storedLine(report.freshness)}\n`;
  out += driftHeaderLine(report.drift);
  if (report.outsideAccess) out += `${outsideAccessLine(report.outsideAccess)}\n`;

  const groups = resourceGroups(report, showHealth);
  if (groups.length > 0) {
    out += "RESOURCES:\n";
    for (const group of groups) out += `==> ${group.key}\n${group.body}\n`;
    out += "\n";
  }
  out += testSuite(report);
  if ((info.description ?? "").toLowerCase() === "dry run complete") {
    out += "HOOKS:\n";
    for (const hook of release.hooks) out += `---\n# Source: ${hook.path}\n${hook.manifest}\n`;
    out += `MANIFEST:\n${release.manifest}\n`;
  }
  if (info.notes && info.notes.length > 0) out += `NOTES:\n${info.notes.trim()}\n`;
  return out;
}

interface Group {
  key: string;
  body: string;
}

function resourceGroups(report: StatusReport, showHealth: boolean): Group[] {
  const byKey = new Map<string, ResourceEntry[]>();
  for (const entry of [...report.resources].sort((a, b) => a.index - b.index)) {
    const list = byKey.get(entry.groupKey) ?? [];
    list.push(entry);
    byKey.set(entry.groupKey, list);
  }
  const keys = [...byKey.keys()].sort((a, b) => compareGroups(byKey.get(a)![0].kind, a, byKey.get(b)![0].kind, b));
  const groups: Group[] = keys.map((key) => ({ key, body: printRuns(byKey.get(key)!) }));
  if (report.relatedPods.length > 0) {
    groups.push({
      key: RELATED_PODS_KEY,
      body: printRuns(report.relatedPods.map((pods) => ({ columns: pods.columns, rows: pods.rows }))),
    });
  }
  if (report.missing.length > 0) groups.push({ key: "MISSING", body: printMissing(report.missing) });
  const drift = driftSection(report);
  if (drift) groups.push({ key: "DRIFT", body: drift });
  const driftLines = driftHealthLines(report.drift);
  const unhealthy = report.health.resources.filter(
    (entry) => entry.status !== "Current" || driftLines.has(driftObjectKey(entry)),
  );
  if (showHealth && unhealthy.length > 0) {
    const lines = unhealthy.map((entry) => [
      `${entry.apiVersion.split("/").pop()}/${entry.kind}`,
      entry.name,
      entry.status,
      formatCell(
        [entry.status !== "Current" ? entry.message : "", driftLines.get(driftObjectKey(entry)) ?? ""]
          .filter(Boolean)
          .join("; "),
      ),
    ]);
    groups.push({ key: "HEALTH", body: alignLines([["KIND", "NAME", "STATUS", "MESSAGE"], ...lines]) });
  }
  return groups;
}

export function compareGroups(kindA: string, keyA: string, kindB: string, keyB: string): number {
  const rankA = RANK.get(kindA) ?? INSTALL_ORDER.length;
  const rankB = RANK.get(kindB) ?? INSTALL_ORDER.length;
  if (rankA !== rankB) return rankA - rankB;
  if (kindA !== kindB) return kindA < kindB ? -1 : 1;
  return keyA < keyB ? -1 : keyA > keyB ? 1 : 0;
}

/**
 * One header and one alignment for consecutive tables with the same visible
 * columns; a new header only where the columns change (two kinds from
 * different API groups can share a group key).
 */
function printRuns(tables: { columns: ResourceEntry["columns"]; rows: unknown[][] }[]): string {
  let out = "";
  let run: typeof tables = [];
  let signature = "";
  const flush = () => {
    if (run.length === 0) return;
    out += printTable({ columns: run[0].columns, rows: run.flatMap((table) => table.rows) });
    run = [];
  };
  for (const table of tables) {
    const next = JSON.stringify(visibleColumns(table.columns).map((i) => table.columns[i].name));
    if (next !== signature) flush();
    signature = next;
    run.push(table);
  }
  flush();
  return out;
}

function printMissing(missing: MissingEntry[]): string {
  const rows = missing.map((entry) => [
    entry.apiVersion && entry.kind ? `${entry.apiVersion.split("/").pop()}/${entry.kind}` : (entry.kind ?? "<unknown>"),
    entry.name ?? "<unknown>",
    formatCell(reasonText(entry)),
  ]);
  return alignLines([["KIND", "NAME", "REASON"], ...rows]);
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

/** helm-status.md §4.2: `None` without test hooks; nothing when none ever ran. */
function testSuite(report: StatusReport): string {
  const tests = report.release.hooks.filter((hook) => hook.events?.includes("test"));
  if (tests.length === 0) return "TEST SUITE: None\n";
  let out = "";
  for (const hook of tests) {
    const run = hook.last_run;
    if (!run || isZeroTime(run.started_at)) continue;
    out += `TEST SUITE:     ${hook.name}\n`;
    out += `Last Started:   ${formatAnsiC(run.started_at ?? ZERO_TIME)}\n`;
    out += `Last Completed: ${formatAnsiC(run.completed_at || ZERO_TIME)}\n`;
    out += `Phase:          ${run.phase}\n`;
  }
  return out;
}
