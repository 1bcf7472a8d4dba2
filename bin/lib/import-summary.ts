/** The text summary of an import (`import`, and `push` with the API's answer): failures, warnings, then the counts. */
import type { ImportSummary } from "../../shared/usecases/import.ts";

export function renderImportSummary(summary: ImportSummary): string {
  const lines = summary.results
    .filter((r) => r.outcome === "failed")
    .map((r) => `failed: ${r.object}${r.release ? ` (${r.release} revision ${r.revision})` : ""}: ${r.error}`);
  for (const r of summary.results) {
    for (const warning of r.warnings ?? []) lines.push(`warning: ${r.object}: ${warning}`);
  }
  const notStarted = summary.notStarted > 0 ? `, not started ${summary.notStarted}` : "";
  lines.push(
    `cluster ${summary.cluster}: imported ${summary.imported}, unchanged ${summary.unchanged}, skipped ${summary.skipped}, failed ${summary.failed}${notStarted}`,
  );
  if (summary.hint) lines.push(summary.hint);
  return `${lines.join("\n")}\n`;
}
