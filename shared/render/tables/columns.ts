import { goRuneWidth } from "./runewidth.ts";

/**
 * Text tables as Helm and kubectl print them.
 *
 * `uiTable` is gosuri/uitable v0.0.4 as helm 4 uses it for `helm list` / `helm history`: a column is as wide
 * as its widest line (go-runewidth v0.0.9 widths, runewidth.ts: its wide and emoji table 2, its combining and
 * format characters 0, everything else 1, rune by rune); each cell, whole, is then resized to that width (`strutil.Resize`: padded with
 * spaces, or, when wider, cut with `...`, so a multi-line DESCRIPTION wider than its widest line loses its
 * tail), and only then split into lines (the row grows one line per line, the other cells blank and padded);
 * cells joined by a TAB, every cell (the last one too) padded, `output.EncodeTable` adding the final newline.
 */

/** uitable's strutil ANSI pattern: its StringWidth ignores colour codes (its cut does not). */
// biome-ignore lint/complexity/useRegexLiterals: as a literal the pattern would hold control characters
const ANSI = new RegExp(
  "[\\u001B\\u009B][[\\]()#;?]*(?:(?:(?:[a-zA-Z\\d]*(?:;[a-zA-Z\\d]*)*)?\\u0007)|(?:(?:\\d{1,4}(?:;\\d{0,4})*)?[\\dA-PRZcf-ntqry=><~]))",
  "g",
);
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** go-runewidth v0.0.9's RuneWidth (not East Asian) of one character. */
export function runeWidth(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  if (code >= 0x20 && code < 0x7f) return 1;
  return goRuneWidth(code);
}

/** go-runewidth v0.0.9's StringWidth: the sum of its runes' widths (it knows no grapheme clusters). */
export function displayWidth(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length;
  let width = 0;
  for (const char of text) width += runeWidth(char);
  return width;
}

const uiWidth = (text: string) => displayWidth(text.replace(ANSI, ""));

/** strutil.Resize, left-aligned: pad to `width`, or cut after the rune that reaches `width - 3` and add `...`. */
function resize(text: string, width: number): string {
  const current = uiWidth(text);
  if (current <= width) return text + " ".repeat(width - current);
  let out = "";
  let used = 0;
  for (const char of text) {
    out += char;
    const w = runeWidth(char);
    if (used + w >= width - 3) break;
    used += w;
  }
  return `${out}...`;
}

export function uiTable(rows: string[][]): string {
  if (rows.length === 0) return "\n";
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      for (const line of cell.split("\n")) widths[i] = Math.max(widths[i] ?? 0, uiWidth(line));
    });
  }
  const out: string[] = [];
  for (const row of rows) {
    const cellLines = row.map((cell, i) => resize(cell, widths[i]).split("\n"));
    const height = Math.max(...cellLines.map((lines) => lines.length));
    for (let line = 0; line < height; line++) {
      out.push(cellLines.map((lines, i) => resize(lines[line] ?? "", widths[i])).join("\t"));
    }
  }
  return `${out.join("\n")}\n`;
}

/**
 * kubectl's printer (text/tabwriter, padding 3, spaces): columns left-aligned,
 * separated by at least three spaces, the last column never padded. text/tabwriter
 * counts a cell's width in runes (utf8.RuneCount), not display columns.
 */
export function kubectlColumns(rows: string[][]): string {
  const runes = (text: string) => [...text].length;
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      if (i < row.length - 1) widths[i] = Math.max(widths[i] ?? 0, runes(cell));
    });
  }
  return rows
    .map((row) =>
      row.map((cell, i) => (i < row.length - 1 ? cell + " ".repeat(widths[i] - runes(cell) + 3) : cell)).join(""),
    )
    .map((line) => `${line}\n`)
    .join("");
}
