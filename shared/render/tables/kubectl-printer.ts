import type { TableColumn } from "../../kube/table.ts";

/**
 * kubectl's human-readable Table printer (cli-runtime tableprinter + liggitt
 * tabwriter: minwidth 6, padding 3, pad ' '; kubernetes-api.md §6): priority-0
 * columns only, upper-cased headers, every column but the last padded to
 * max(6, widest cell + 3) runes, the last one never padded.
 *
 * Unlike helm v4, which gives every object its own tabwriter, all rows passed in
 * one call share one header and one alignment (the project target's fix).
 */

const MIN_WIDTH = 6;
const PADDING = 3;

export interface PrintableTable {
  columns: readonly TableColumn[];
  rows: readonly (readonly unknown[])[];
}

/** The visible (priority-0) column positions of a Table. */
export function visibleColumns(columns: readonly TableColumn[]): number[] {
  return columns.flatMap((column, index) => (column.priority === 0 ? [index] : []));
}

/** Renders header + rows as lines ending in `\n`; no rows prints nothing (like kubectl). */
export function printTable(table: PrintableTable): string {
  if (table.rows.length === 0) return "";
  const visible = visibleColumns(table.columns);
  const header = visible.map((i) => table.columns[i].name.toUpperCase());
  const body = table.rows.map((row) => visible.map((i) => formatCell(row[i])));
  return alignLines([header, ...body]);
}

/** Tabwriter alignment of already formatted cells. */
export function alignLines(lines: readonly (readonly string[])[]): string {
  const columnCount = Math.max(0, ...lines.map((line) => line.length));
  const widths: number[] = [];
  for (let c = 0; c < columnCount - 1; c++) {
    let widest = 0;
    for (const line of lines) if (c < line.length - 1) widest = Math.max(widest, runeLength(line[c]));
    widths.push(Math.max(MIN_WIDTH, widest + PADDING));
  }
  let out = "";
  for (const line of lines) {
    let text = "";
    line.forEach((cell, c) => {
      text += c < line.length - 1 ? cell + " ".repeat(Math.max(0, widths[c] - runeLength(cell))) : cell;
    });
    out += `${text}\n`;
  }
  return out;
}

/**
 * A cell as kubectl prints it: nil empty, strings cut at the first line break
 * with `...`, other values as Go's fmt.Sprint would, terminal escapes defused.
 */
export function formatCell(value: unknown): string {
  let text: string;
  if (value === null || value === undefined) text = "";
  else if (typeof value === "string") text = value;
  else text = goSprint(value);
  const cut = text.search(/[\n\r\f]/);
  if (cut >= 0) text = `${text.slice(0, cut)}...`;
  return defuse(text);
}

/** A tab would open a new column; ESC and other controls could drive the reader's terminal. */
function defuse(text: string): string {
  let out = "";
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code === 9) out += " ";
    else if (code === 27) out += "^[";
    else if (code < 32 || code === 127) out += "?";
    else out += char;
  }
  return out;
}

function goSprint(value: unknown): string {
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (Array.isArray(value)) return `[${value.map(goSprint).join(" ")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${key}:${goSprint((value as Record<string, unknown>)[key])}`);
    return `map[${entries.join(" ")}]`;
  }
  return String(value);
}

function runeLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
