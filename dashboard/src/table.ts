/**
 * The one shape of a table's columns, for `DataTable` (data-table.tsx): every table of the dashboard is rows of
 * some type and a list of these. Pure (unit-tested without a browser: test/dashboard/table.test.ts).
 */
import { cellClass } from "./status-view.ts";

export interface Column<T> {
  /** The header cell's text. */
  title: string;
  /** The cell's content: text, a number or a preact element (typed loosely so that this file needs no DOM types). */
  cell: (row: T) => unknown;
  /** A class for the cell (a bad status, a health verdict). */
  cellClass?: (row: T) => string | undefined;
  /** A tooltip for the cell (the exact time behind "5m ago"). */
  cellTitle?: (row: T) => string | undefined;
}

/** Columns over rows of printed cells (the status text's tables): one per header, its cells marked by `cellClass`. */
export function textColumns(headers: readonly string[]): Column<readonly string[]>[] {
  return headers.map((title, i) => ({
    title,
    cell: (row) => row[i] ?? "",
    cellClass: (row) => cellClass(title, row[i] ?? ""),
  }));
}
