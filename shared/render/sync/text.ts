/** The sync summary as the CLI prints it: one aligned row of counters, then failures, removals and notes. */

import type { SyncSummary } from "../../sync/summary.ts";
import { alignLines } from "../tables/kubectl-printer.ts";

export function renderSyncText(summary: SyncSummary): string {
  const header = [
    "CLUSTER",
    "NAMESPACES",
    "LISTED",
    "FETCHED",
    "IMPORTED",
    "UPDATED",
    "UNCHANGED",
    "FAILED",
    "REMOVED",
    "REQUESTS",
    "BYTES",
    "COMPLETE",
  ];
  const row = [
    summary.cluster,
    summary.namespaces === "*" ? "all" : summary.namespaces.join(","),
    ...[
      summary.listed,
      summary.fetched,
      summary.imported,
      summary.updated,
      summary.unchanged,
      summary.failed,
      summary.removed,
      summary.requests,
    ].map(String),
    humanBytes(summary.bytes),
    summary.complete ? "yes" : "no",
  ];
  let out = alignLines([header, row]);
  const details: string[][] = [
    ...summary.failures.map((f) => ["FAILED", f.object, f.error]),
    ...summary.removals.map((r) => [
      "REMOVED",
      `${r.release} revision ${r.revision}`,
      `${r.origin === "import" ? "imported by hand: " : ""}${r.reason}`,
    ]),
    ...summary.forbidden.map((f) => ["FORBIDDEN", f.split(":")[0], f.slice(f.indexOf(":") + 1).trim()]),
  ];
  if (details.length > 0) out += `\n${alignLines(details)}`;
  const omitted = summary.failed - summary.failures.length + (summary.removed - summary.removals.length);
  if (omitted > 0) out += `(${omitted} more; -o json lists the first 100 of each)\n`;
  for (const note of summary.notes) out += `NOTE: ${note}\n`;
  if (summary.hint) out += `${summary.complete ? "" : "INCOMPLETE: "}${summary.hint}\n`;
  return out;
}

export function humanBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
