/**
 * Text tables as Helm and kubectl print them.
 *
 * `uiTable` is gosuri/uitable as Helm uses it for `helm list` / `helm history`:
 * every cell (the last one too) right-padded to its column's width, columns joined
 * by a TAB, cells wider than `maxColWidth` cut to width with "...", and
 * `output.EncodeTable` adding the final newline.
 */

export interface UiTableOptions {
  /** uitable's MaxColWidth; 0 = unlimited (helm list), 60 for helm history. */
  maxColWidth?: number;
}

/** Display width in code points; East Asian wide characters are not special-cased. */
export function displayWidth(text: string): number {
  return [...text].length;
}

function resize(text: string, width: number): string {
  const length = displayWidth(text);
  if (length === width) return text;
  if (length < width) return text + " ".repeat(width - length);
  return [...text].slice(0, Math.max(0, width - 3)).join("") + "...";
}

export function uiTable(rows: string[][], options: UiTableOptions = {}): string {
  if (rows.length === 0) return "\n";
  const max = options.maxColWidth ?? 0;
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      const width = max > 0 ? Math.min(displayWidth(cell), max) : displayWidth(cell);
      widths[i] = Math.max(widths[i] ?? 0, width);
    });
  }
  const lines = rows.map((row) => row.map((cell, i) => resize(cell, widths[i])).join("\t"));
  return `${lines.join("\n")}\n`;
}

/**
 * kubectl's printer (text/tabwriter, padding 3, spaces): columns left-aligned,
 * separated by at least three spaces, the last column never padded.
 */
export function kubectlColumns(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      if (i < row.length - 1) widths[i] = Math.max(widths[i] ?? 0, displayWidth(cell));
    });
  }
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i < row.length - 1 ? cell + " ".repeat(widths[i] - displayWidth(cell) + 3) : cell))
        .join(""),
    )
    .map((line) => `${line}\n`)
    .join("");
}
