/**
 * The release page's status, read from the one status document the API answers (`?output=json`: Helm's release
 * shape plus our fields, `StatusDocument`): the header fields and the text's `==> KEY` sections, which the
 * document carries as data (`groups`). Nothing here parses Helm's text or rebuilds its group key. Pure functions
 * (unit-tested without a browser: test/dashboard/status-view.test.ts).
 */
import type { StatusDocument } from "../../shared/render/status/json.ts";
import { when } from "./format.ts";

export type { StatusDocument };

/** Health verdicts, worst first (the fleet's order), and the dashboard's own "not audited yet". */
export const HEALTHS = ["Failed", "Unknown", "NotFound", "Terminating", "InProgress", "Current", "NotAudited"] as const;

/** A table of printed cells, as the status text shows it, with the caption it has there (`==> v1/Deployment`). */
export interface CaptionedTable {
  caption: string;
  columns: string[];
  rows: string[][];
}

/** The lines of the text's header (NAME, LAST DEPLOYED, ...), from the document's fields. */
export function statusFields(status: StatusDocument): [string, string][] {
  const fields: [string, string][] = [["NAME", status.name]];
  if (status.info.last_deployed) fields.push(["LAST DEPLOYED", when(status.info.last_deployed)]);
  fields.push(
    ["NAMESPACE", status.namespace],
    ["STATUS", status.info.status],
    ["REVISION", String(status.version)],
    ["DESCRIPTION", status.info.description ?? ""],
    // As the text's HEALTH line: the verdict cites the first cause chain's root (docs/status.md "WHY").
    [
      "HEALTH",
      `${status.health.overall} (${status.health.ruleset}: ${status.health.message})${status.health.cause ? ` because ${status.health.cause}` : ""}`,
    ],
  );
  if (status.freshness) fields.push(["STORED", status.freshness.message]);
  const drifted = status.drift?.fields.length ?? 0;
  if (drifted > 0) {
    const conflicts = status.drift?.conflicts ?? 0;
    fields.push([
      "DRIFT",
      `${drifted} field${drifted === 1 ? "" : "s"}${conflicts ? `, ${conflicts} in conflict with the next upgrade` : ""}`,
    ]);
  }
  // The cluster's audit logs are off: nobody can be named for a write (docs/who.md), said once.
  if (status.auditLogging) fields.push(["WHO", status.auditLogging]);
  fields.push([
    "READ",
    `${when(status.observedAt)}${status.complete ? "" : " (partial: some resources were not read in time)"}`,
  ]);
  return fields;
}

/** Sections the page shows first, in its "Why" block (`whyView`), not again among the tables. */
const WHY_SECTIONS = new Set(["WHY", "EVENTS"]);

/**
 * Every table of the text's sections, in its order: the resource groups, then MISSING, DRIFT, HEALTH (WHY and
 * EVENTS are the page's first block: `whyView`).
 */
export function statusTables(status: StatusDocument): CaptionedTable[] {
  return status.groups
    .filter((group) => !WHY_SECTIONS.has(group.key))
    .flatMap((group) => group.tables.map((table) => ({ caption: group.key, ...table })));
}

/** A crashed container's masked log excerpt, or why there is none, captioned as the text captions it. */
export interface LogView {
  caption: string;
  lines?: string[];
  unread?: string;
}

/**
 * Why the release is not healthy, for the top of the status: the cause chains (one line each, the text's WHY with
 * its first link), then the events table as the text's EVENTS prints it, then the log excerpts (collapsed).
 */
export function whyView(status: StatusDocument): { causes: string[]; events?: CaptionedTable; logs: LogView[] } {
  const causes = (status.causes ?? []).map((cause) => cause.text);
  const eventsGroup = status.groups.find((group) => group.key === "EVENTS");
  const events = eventsGroup?.tables[0] && { caption: "EVENTS", ...eventsGroup.tables[0] };
  const logs = (status.causes ?? []).flatMap((cause): LogView[] => {
    if (!cause.log) return [];
    const caption = `${cause.name}/${cause.log.container}`;
    if ("unread" in cause.log) return [{ caption, unread: cause.log.unread }];
    const which = cause.log.previous ? "previous instance" : "current instance";
    return [{ caption: `${caption} (${which})`, lines: cause.log.lines }];
  });
  return { causes, ...(events ? { events } : {}), logs };
}

/** Marks the cells people scan for: a bad pod status, a health verdict. */
export function cellClass(column: string, cell: string): string | undefined {
  if (column === "STATUS" && /CrashLoopBackOff|Error|Failed|ImagePull|OOMKilled|NotFound/.test(cell)) return "bad";
  if (column === "STATUS" && HEALTHS.includes(cell as (typeof HEALTHS)[number])) return `h-${cell}`;
  return undefined;
}
