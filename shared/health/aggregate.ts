/**
 * Aggregation of per-resource verdicts into one release verdict.
 *
 * `aggregateKstatus` is cli-utils `AggregateStatus` exactly. `overallHealth`,
 * the one the product shows, differs in one place: a NotFound member makes the
 * release Failed, where kstatus would say InProgress. kstatus assumes something
 * is still applying the object; for `helm status` nothing will recreate a
 * deleted manifest resource, so "in progress" would wait forever (Helm v4's
 * watcher times out on it). Recorded in docs/health.md.
 */
import { HEALTH_RULESET, HEALTH_STATUSES, type HealthStatus } from "./types.ts";

export function aggregateKstatus(statuses: HealthStatus[], desired: HealthStatus = "Current"): HealthStatus {
  if (statuses.includes("Failed")) return "Failed";
  if (statuses.includes("Unknown")) return "Unknown";
  if (statuses.every((status) => status === desired)) return desired;
  return "InProgress";
}

/** Failed (or NotFound) > Unknown > all Current > InProgress. No resources at all is Current, as in kstatus. */
export function overallHealth(statuses: HealthStatus[]): HealthStatus {
  if (statuses.includes("NotFound")) return "Failed";
  return aggregateKstatus(statuses, "Current");
}

export interface HealthSummary {
  ruleset: typeof HEALTH_RULESET;
  status: HealthStatus;
  counts: Record<HealthStatus, number>;
  /** e.g. "2 of 12 resources not Current: 1 Failed, 1 NotFound". */
  message: string;
}

export function summarizeHealth(statuses: HealthStatus[]): HealthSummary {
  const counts = Object.fromEntries(HEALTH_STATUSES.map((status) => [status, 0])) as Record<HealthStatus, number>;
  for (const status of statuses) counts[status] += 1;
  const notCurrent = statuses.length - counts.Current;
  const noun = statuses.length === 1 ? "resource" : "resources";
  const breakdown = HEALTH_STATUSES.filter((status) => status !== "Current" && counts[status] > 0)
    .map((status) => `${counts[status]} ${status}`)
    .join(", ");
  const message =
    notCurrent === 0
      ? `all ${statuses.length} ${noun} Current`
      : `${notCurrent} of ${statuses.length} ${noun} not Current: ${breakdown}`;
  return { ruleset: HEALTH_RULESET, status: overallHealth(statuses), counts, message };
}
