/**
 * Helm's status text read back into its parts: the header lines (NAME: ..., HEALTH: ...), and each
 * `==> GROUP` section as a table. Columns are where the header's words start (Helm pads columns with at
 * least two spaces; a cell may hold single spaces: "5 (2m ago)"), so every row is cut at those offsets.
 */
export interface TextTable {
  title: string;
  columns: string[];
  rows: string[][];
}

export interface StatusText {
  fields: [string, string][];
  sections: TextTable[];
  notes: string;
}

export function parseStatusText(text: string): StatusText {
  const lines = text.split("\n");
  const fields: [string, string][] = [];
  const sections: TextTable[] = [];
  let notes = "";
  let i = 0;
  for (; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith("==> ")) break;
    if (line === "NOTES:") {
      notes = lines.slice(i + 1).join("\n");
      return { fields, sections, notes };
    }
    const m = /^([A-Z][A-Z ]*):\s?(.*)$/.exec(line);
    if (m && m[1] !== "RESOURCES") fields.push([m[1], m[2]]);
  }
  while (i < lines.length) {
    const line = lines[i];
    if (line === "NOTES:") {
      notes = lines.slice(i + 1).join("\n");
      break;
    }
    const m = /^([A-Z][A-Z ]*):\s?(.*)$/.exec(line);
    if (!line.startsWith("==> ")) {
      if (m && m[1] !== "RESOURCES") fields.push([m[1], m[2]]);
      i++;
      continue;
    }
    const title = line.slice(4);
    const header = lines[i + 1] ?? "";
    const starts = columnStarts(header);
    const rows: string[][] = [];
    i += 2;
    while (i < lines.length && lines[i].trim() !== "" && !lines[i].startsWith("==> ")) {
      rows.push(cut(lines[i], starts));
      i++;
    }
    sections.push({ title, columns: cut(header, starts), rows });
  }
  return { fields, sections, notes };
}

function columnStarts(header: string): number[] {
  const starts: number[] = [];
  const re = /(^|\s{2,})(\S)/g;
  for (let m = re.exec(header); m; m = re.exec(header)) starts.push(m.index + m[1].length);
  return starts.length ? starts : [0];
}

function cut(line: string, starts: number[]): string[] {
  return starts.map((start, k) => line.slice(start, starts[k + 1] ?? line.length).trim());
}
