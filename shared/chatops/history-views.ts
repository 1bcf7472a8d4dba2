/**
 * `fleet` and `timeline` answers (the status-history snapshots) as table lines,
 * shared by the Slack and Teams renderers: what is unhealthy now across the
 * channel's clusters, and one release's run-length history, newest first.
 */

import { alignLines, formatCell } from "../render/tables/kubectl-printer.ts";
import type { FleetEntry } from "../snapshots/model.ts";
import type { SnapshotSummary } from "../usecases/snapshots.ts";

/** "2026-12-02T10:00:00.123Z" -> "2026-12-02 10:00Z" (compact for a phone). */
function when(iso: string): string {
  return iso.replace(/T(\d\d:\d\d).*$/, " $1Z");
}

export function fleetLines(entries: readonly FleetEntry[]): string[] {
  const rows = entries.map((e) => [
    e.release.cluster,
    `${e.release.namespace}/${e.release.name}`,
    String(e.revision),
    e.health.overall,
    when(e.since),
    formatCell(e.health.message.length > 80 ? `${e.health.message.slice(0, 79)}…` : e.health.message),
  ]);
  return alignLines([["CLUSTER", "RELEASE", "REV", "HEALTH", "SINCE", "WHY"], ...rows])
    .trimEnd()
    .split("\n");
}

export function timelineLines(snapshots: readonly SnapshotSummary[]): string[] {
  const rows = snapshots.map((s) => {
    const changes = s.changes
      .map(
        (c) =>
          `${c.kind}${c.subject ? ` ${c.subject}` : ""}${c.from !== undefined || c.to !== undefined ? ` ${c.from ?? "-"}→${c.to ?? "-"}` : ""}`,
      )
      .join("; ");
    return [
      when(s.firstSeenAt),
      when(s.lastSeenAt),
      String(s.seenCount),
      String(s.revision),
      s.releaseStatus,
      s.health.overall,
      formatCell(changes.length > 80 ? `${changes.slice(0, 79)}…` : changes || "-"),
    ];
  });
  return alignLines([["FIRST SEEN", "LAST SEEN", "SEEN", "REV", "STATUS", "HEALTH", "CHANGES"], ...rows])
    .trimEnd()
    .split("\n");
}
