/** The dashboard's one table: a caption, a header row from the columns, a row per item; scrolls on a phone. */
import type { ComponentChildren } from "preact";
import type { Column } from "./table.ts";

export function DataTable<T>({
  columns,
  rows,
  rowKey,
  caption,
  class: className,
  rowClass,
}: {
  columns: readonly Column<T>[];
  rows: readonly T[];
  /** A stable key per row (preact keeps a row's DOM when the list changes). */
  rowKey: (row: T, index: number) => string | number;
  caption?: ComponentChildren;
  class?: string;
  rowClass?: (row: T) => string | undefined;
}) {
  return (
    <div class="scroll">
      <table class={className}>
        {caption !== undefined && <caption>{caption}</caption>}
        <thead>
          <tr>
            {columns.map((column, j) => (
              <th scope="col" key={j}>
                {column.title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={rowKey(row, i)} class={rowClass?.(row)}>
              {columns.map((column, j) => (
                <td key={j} class={column.cellClass?.(row)} title={column.cellTitle?.(row)}>
                  {column.cell(row) as ComponentChildren}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
