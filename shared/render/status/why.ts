/**
 * The status's WHY and EVENTS sections as tables (docs/status.md "WHY"): the cause chain of each resource not
 * Current (shared/why/causes.ts), then the events about the release's objects as `kubectl describe` prints them.
 * Cluster text goes through formatCell: one line, no control characters.
 */
import { humanDuration } from "../../kube/table.ts";
import type { StatusReport } from "../../status/report.ts";
import { formatCell } from "../tables/kubectl-printer.ts";

/** A table as printed (groups.ts's StatusTable; declared here so the two files do not import each other). */
interface StatusTable {
  columns: string[];
  rows: string[][];
}

const shortKind = (apiVersion: string, kind: string) => `${apiVersion.split("/").pop()}/${kind}`;

/** KIND, NAME, WHY: the chain after its first link (the resource, which KIND and NAME already say). */
export function whyTables(report: StatusReport): StatusTable[] | undefined {
  if (!report.causes?.length) return undefined;
  const rows = report.causes.map((cause) => {
    const chain = cause.text.includes(" → ") ? cause.text.slice(cause.text.indexOf(" → ") + 3) : cause.text;
    return [shortKind(cause.apiVersion, cause.kind), cause.name, formatCell(chain)];
  });
  const tables: StatusTable[] = [{ columns: ["KIND", "NAME", "WHY"], rows }];
  const logs = report.causes.flatMap((cause) => (cause.log ? [{ cause, log: cause.log }] : []));
  for (const { cause, log } of logs) {
    if ("unread" in log) {
      tables.push({
        columns: ["LOG", "NOT SHOWN"],
        rows: [[`${cause.name}/${log.container}`, formatCell(log.unread)]],
      });
    } else {
      const which = log.previous ? "previous instance" : "current instance";
      tables.push({
        columns: [
          `LOG ${cause.name}/${log.container} (${which}, last ${log.lines.length} lines${log.truncated ? ", cut" : ""})`,
        ],
        rows: log.lines.map((line) => [formatCell(line)]),
      });
    }
  }
  return tables;
}

/** LAST SEEN (`2m (x12 over 10m)`), TYPE, REASON, OBJECT, MESSAGE; or why the events were not read. */
export function eventsTables(report: StatusReport): StatusTable[] | undefined {
  const events = report.events;
  if (!events) return undefined;
  if (events.unread) return [{ columns: ["NOT READ"], rows: [[formatCell(events.unread)]] }];
  if (events.items.length === 0) return undefined;
  const now = Date.parse(report.observedAt);
  const age = (time: string | undefined) => (time ? humanDuration(Math.max(0, now - Date.parse(time))) : "<unknown>");
  const rows = events.items.map((e) => [
    e.count > 1 ? `${age(e.lastSeen)} (x${e.count} over ${age(e.firstSeen)})` : age(e.lastSeen),
    e.type,
    formatCell(e.reason),
    `${e.object.kind}/${e.object.name}`,
    formatCell(e.message),
  ]);
  const tables: StatusTable[] = [{ columns: ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"], rows }];
  if (events.more) {
    tables.push({
      columns: ["NOTE"],
      rows: [["the namespace has more Warning events than one page: the first was read, then the unready pods' own"]],
    });
  }
  return tables;
}
