import { isRecord } from "../manifest/manifest.ts";

/**
 * meta.k8s.io/v1 Tables as the API server prints them (kubernetes-api.md §2).
 * The server computes the cells; we only read them. A server that ignores the
 * Table Accept clause answers with the plain object or list, and then we build
 * kubectl's client-side fallback table (NAME, AGE) ourselves.
 */

export interface TableColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority: number;
}

export interface TableRow {
  cells: unknown[];
  /** The full live object (`includeObject=Object`). */
  object?: Record<string, unknown>;
}

export interface Table {
  columns: TableColumn[];
  rows: TableRow[];
  /** The list metadata (resourceVersion), kept for Helm's PodList shape. */
  metadata?: Record<string, unknown>;
}

export function parseTable(body: unknown, now: Date): Table {
  if (!isRecord(body)) throw new Error("the answer is not a JSON object");
  if (body.kind === "Table") {
    const columns = (Array.isArray(body.columnDefinitions) ? body.columnDefinitions : []).map(toColumn);
    const rows = (Array.isArray(body.rows) ? body.rows : []).filter(isRecord).map((row) => ({
      cells: Array.isArray(row.cells) ? row.cells : [],
      object: isRecord(row.object) ? row.object : undefined,
    }));
    const metadata =
      isRecord(body.metadata) && typeof body.metadata.resourceVersion === "string"
        ? { resourceVersion: body.metadata.resourceVersion }
        : {};
    return { columns, rows, metadata };
  }
  const objects = Array.isArray(body.items) ? body.items.filter(isRecord) : [body];
  return {
    columns: [
      { name: "Name", type: "string", format: "name", priority: 0 },
      { name: "Age", type: "string", priority: 0 },
    ],
    rows: objects.map((object) => {
      const metadata = isRecord(object.metadata) ? object.metadata : {};
      const created = typeof metadata.creationTimestamp === "string" ? Date.parse(metadata.creationTimestamp) : NaN;
      return {
        cells: [metadata.name ?? "", Number.isNaN(created) ? "<unknown>" : humanDuration(now.getTime() - created)],
        object,
      };
    }),
  };
}

function toColumn(value: unknown): TableColumn {
  const column = isRecord(value) ? value : {};
  return {
    name: typeof column.name === "string" ? column.name : "",
    type: typeof column.type === "string" ? column.type : "string",
    format: typeof column.format === "string" && column.format ? column.format : undefined,
    description: typeof column.description === "string" ? column.description : undefined,
    priority: typeof column.priority === "number" ? column.priority : 0,
  };
}

/** apimachinery `duration.HumanDuration`, exactly (kubernetes-api.md §5). */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  let value = seconds;
  let unit = "s";
  for (const [larger, size, twoUnitsBelow, oneUnitBelow] of HUMAN_DURATION_STEPS) {
    const count = Math.trunc(value / size);
    const rest = value % size;
    if (count < twoUnitsBelow) return rest === 0 ? `${count}${larger}` : `${count}${larger}${rest}${unit}`;
    if (count < oneUnitBelow) return `${count}${larger}`;
    value = count;
    unit = larger;
  }
  return `${value}${unit}`;
}

/**
 * HumanDuration's ladder: each unit, its size in the unit before, below what count it is printed with the unit
 * before (`5m30s`, or `5m` when that is 0), and below what count alone (`45m`). Go writes the same bounds in hours
 * (`hours < 24*8`); a count of whole days or years below N is the same test.
 */
const HUMAN_DURATION_STEPS = [
  ["m", 60, 10, 180],
  ["h", 60, 8, 48],
  ["d", 24, 8, 730],
  ["y", 365, 8, Number.POSITIVE_INFINITY],
] as const;
