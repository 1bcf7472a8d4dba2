import type { StatusReport } from "../../status/report.ts";
import { alignLines, formatCell } from "../tables/kubectl-printer.ts";
import { formatAnsiC, isZeroTime, ZERO_TIME } from "../time/helm-time.ts";
import { driftHeaderLine } from "./drift.ts";
import { type StatusGroup, statusGroups } from "./groups.ts";

/** The group order's rule, for the chat renderers (its home: groups.ts). */
export { compareGroups, INSTALL_ORDER } from "./groups.ts";

/**
 * `helm status` text, helm v4.1.4's layout line for line (helm-status.md §4),
 * with the project target's fixes (§0), its sections decided in groups.ts (the JSON carries the same):
 * 1. groups in Helm's install order by Kind; `v1/Pod(related)` after all groups;
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

/** The one line (text, Slack, Teams) saying the cluster's audit logs are off, so drift names no person. */
export function auditLoggingLine(auditLogging: string): string {
  return `WHO: ${formatCell(auditLogging)}`;
}

/**
 * The `HEALTH:` line: the verdict, kstatus's count, and the first cause chain's root it cites (docs/status.md "WHY"):
 * `HEALTH: Failed (kstatus: 1 of 12 resources not Current: 1 Failed) because Deployment api: container api
 * CrashLoopBackOff, exit code 1`. The citation is cluster text: one line, no control characters.
 */
function healthLine(health: StatusReport["health"]): string {
  const because = health.cause ? ` because ${formatCell(health.cause)}` : "";
  return `HEALTH: ${health.overall} (${health.ruleset}: ${health.message})${because}`;
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
  if (showHealth) out += `${healthLine(report.health)}\n`;
  if (showHealth && report.freshness) out += `${storedLine(report.freshness)}\n`;
  out += driftHeaderLine(report.drift);
  if (report.auditLogging) out += `${auditLoggingLine(report.auditLogging)}\n`;
  if (report.outsideAccess) out += `${outsideAccessLine(report.outsideAccess)}\n`;

  const groups = statusGroups(report, { health: showHealth });
  if (groups.length > 0) {
    out += "RESOURCES:\n";
    for (const group of groups) out += `==> ${group.key}\n${groupBody(group)}\n`;
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

/** A section's tables, one header and one alignment each (kubectl's tabwriter). */
function groupBody(group: StatusGroup): string {
  return group.tables.map((table) => alignLines([table.columns, ...table.rows])).join("");
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
