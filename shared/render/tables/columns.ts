/**
 * Text tables as Helm and kubectl print them.
 *
 * `uiTable` is gosuri/uitable as helm 4 uses it for `helm list` / `helm history`: every
 * cell (the last one too) right-padded to its column's width, columns joined by a TAB, a
 * multi-line cell kept inside its column (the row grows one line per line, the other cells
 * blank and padded), no cut at any width, and `output.EncodeTable` adding the final newline.
 */

/** Display width in code points; East Asian wide characters are not special-cased. */
export function displayWidth(text: string): number {
  return [...text].length;
}

const pad = (text: string, width: number) => text + " ".repeat(Math.max(0, width - displayWidth(text)));

export function uiTable(rows: string[][]): string {
  if (rows.length === 0) return "\n";
  const cellLines = rows.map((row) => row.map((cell) => cell.split("\n")));
  const widths: number[] = [];
  for (const row of cellLines) {
    row.forEach((lines, i) => {
      for (const line of lines) widths[i] = Math.max(widths[i] ?? 0, displayWidth(line));
    });
  }
  const out: string[] = [];
  for (const row of cellLines) {
    const height = Math.max(...row.map((lines) => lines.length));
    for (let line = 0; line < height; line++)
      out.push(row.map((lines, i) => pad(lines[line] ?? "", widths[i])).join("\t"));
  }
  return `${out.join("\n")}\n`;
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
