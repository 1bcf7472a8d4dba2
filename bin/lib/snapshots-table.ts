/** The table of a release's snapshots (`snapshots RELEASE`, `remote snapshots RELEASE`): one row per snapshot. */

import { alignLines } from "../../shared/render/tables/kubectl-printer.ts";
import { describeChange } from "../../shared/snapshots/changes.ts";
import type { Change } from "../../shared/snapshots/model.ts";

export interface SnapshotRow {
  id: string;
  firstSeenAt: string;
  lastSeenAt: string;
  seenCount: number;
  revision: number;
  health: { overall: string };
  changes: readonly Change[];
}

export function renderSnapshotsTable(page: { snapshots: readonly SnapshotRow[]; cursor?: string }): string {
  const rows = page.snapshots.map((s) => [
    shortTime(s.firstSeenAt),
    shortTime(s.lastSeenAt),
    String(s.seenCount),
    String(s.revision),
    s.health.overall,
    s.changes.map(describeChange).join("; ") || "-",
    s.id,
  ]);
  const table = alignLines([["FIRST SEEN", "LAST SEEN", "SEEN", "REVISION", "HEALTH", "CHANGES", "ID"], ...rows]);
  return page.cursor ? `${table}(more: narrow with --since/--until or raise --limit)\n` : table;
}

function shortTime(iso: string): string {
  return iso.replace("T", " ").replace(/\.\d{3}Z$/, "Z");
}
