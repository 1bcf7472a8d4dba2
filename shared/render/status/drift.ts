import type { DriftedField, DriftReport } from "../../drift/types.ts";
import { humanDuration } from "../../kube/table.ts";
import type { StatusReport } from "../../status/report.ts";
import type { AttributedDriftedField } from "../../who/shown.ts";
import { whoName } from "../../who/shown.ts";
import { alignLines, formatCell } from "../tables/kubectl-printer.ts";

/**
 * The drift parts of the status text (docs/drift.md): a `DRIFT:` header line with the count, a `==> DRIFT`
 * section (KIND, NAME, FIELD, RELEASE -> LIVE, CHANGED BY, WHEN, NOTE) and one line per drifted object for the
 * HEALTH section. Nothing at all when nothing drifted. Secret values are never here: the report has none.
 */

export function driftHeaderLine(drift: DriftReport | undefined): string {
  if (!drift || drift.fields.length === 0) return "";
  const outside = drift.fields.filter((f) => f.helmRevision === undefined).length;
  const byHelm = [...new Set(drift.fields.flatMap((f) => (f.helmRevision === undefined ? [] : [f.helmRevision])))];
  const details = [
    drift.conflicts > 0 ? `${drift.conflicts} make${drift.conflicts === 1 ? "s" : ""} the next upgrade conflict` : "",
    drift.benign > 0 ? `${drift.benign} benign` : "",
  ].filter(Boolean);
  const parts = [
    outside > 0 ? `${fieldCount(outside)} changed outside Helm${details.length ? ` (${details.join(", ")})` : ""}` : "",
    byHelm.length > 0
      ? `${fieldCount(drift.fields.length - outside)} written by Helm's later revision${byHelm.length === 1 ? "" : "s"} ${byHelm.join(", ")}`
      : "",
  ].filter(Boolean);
  return `DRIFT: ${parts.join("; ")}\n`;
}

const fieldCount = (n: number) => `${n} field${n === 1 ? "" : "s"}`;

export function driftSection(report: StatusReport): string | undefined {
  const table = driftTable(report);
  return table && alignLines([table.columns, ...table.rows]);
}

/** The `==> DRIFT` section's table (groups.ts: the text and the JSON's `groups`); none when nothing drifted. */
export function driftTable(report: StatusReport): { columns: string[]; rows: string[][] } | undefined {
  const drift = report.drift;
  if (!drift || drift.fields.length === 0) return undefined;
  const now = Date.parse(report.observedAt);
  const rows = drift.fields.map((field) => [
    `${field.apiVersion.split("/").pop()}/${field.kind}`,
    formatCell(field.name),
    formatCell(field.field),
    formatCell(field.secret ? field.live : `${field.release} -> ${field.live}`),
    formatCell(changedBy(field)),
    when(field, now),
    formatCell(note(field)),
  ]);
  return { columns: ["KIND", "NAME", "FIELD", "RELEASE -> LIVE", "CHANGED BY", "WHEN", "NOTE"], rows };
}

/** `kind/name` -> the drift line of the HEALTH section, for objects with drift that is not benign. */
export function driftHealthLines(drift: StatusReport["drift"] | DriftReport | undefined): Map<string, string> {
  const lines = new Map<string, string>();
  if (!drift) return lines;
  const byObject = new Map<string, AttributedDriftedField[]>();
  for (const field of drift.fields) {
    // Benign owners and Helm's own later revision are not changes made behind Helm's back.
    if (field.benign || field.helmRevision !== undefined) continue;
    const key = driftObjectKey(field);
    byObject.set(key, [...(byObject.get(key) ?? []), field]);
  }
  for (const [key, fields] of byObject) {
    // The program, and the person when the audit log named them (docs/who.md): `kubectl-patch (alice@example.com)`.
    const managers = [...new Set(fields.map(writerOf).filter(Boolean))];
    const conflicts = fields.filter((f) => f.conflicts).length;
    let line = `drift: ${fields.length} field${fields.length === 1 ? "" : "s"} changed outside Helm`;
    if (managers.length > 0) line += ` by ${managers.join(", ")}`;
    if (conflicts > 0) line += `; the next upgrade conflicts (helm upgrade --force-conflicts takes them back)`;
    lines.set(key, line);
  }
  return lines;
}

function writerOf(field: AttributedDriftedField): string | undefined {
  const person = whoName(field.who);
  return person && field.changedBy ? `${field.changedBy} (${person})` : field.changedBy;
}

export function driftObjectKey(object: { apiVersion: string; kind: string; name: string; namespace?: string }): string {
  return `${object.apiVersion}/${object.kind}/${object.namespace ?? ""}/${object.name}`;
}

/**
 * CHANGED BY: the field manager (a program), and the person the EKS audit log names for that write when it was
 * found (`kubectl-patch by alice@example.com`, docs/who.md). The cell is defused by `formatCell`: a session name
 * is data, its control characters never reach the terminal.
 */
function changedBy(field: AttributedDriftedField): string {
  if (!field.changedBy) return "<unknown>";
  if (field.helmRevision !== undefined) return `${field.changedBy} (revision ${field.helmRevision})`;
  const manager = field.subresource ? `${field.changedBy} (${field.subresource})` : field.changedBy;
  const person = whoName(field.who);
  return person ? `${manager} by ${person}` : manager;
}

function when(field: DriftedField, now: number): string {
  if (!field.changedAt) return "<unknown>";
  const at = Date.parse(field.changedAt);
  if (Number.isNaN(at) || Number.isNaN(now)) return field.changedAt;
  return `${field.changedAt} (${humanDuration(Math.max(0, now - at))} ago)`;
}

function note(field: DriftedField): string {
  const parts: string[] = [];
  if (field.benign) parts.push(`benign (${field.benign})`);
  if (field.conflicts) parts.push("next upgrade conflicts");
  if ((!field.changedBy || field.helmRevision !== undefined) && field.note) parts.push(field.note);
  return parts.join("; ") || "-";
}
