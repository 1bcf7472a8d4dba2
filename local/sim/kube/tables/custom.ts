import type { KubeObject, PrintContext, TableColumn, TablePrinter } from "../types.ts";
import { column, NAME_DESCRIPTION, since } from "./common.ts";

export interface PrinterColumnSpec {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

/**
 * apiextensions-apiserver's table convertor for custom resources: NAME plus each
 * additionalPrinterColumn, or NAME/AGE when the CRD declares none
 * (`serveDefaultColumnsIfEmpty`). Dates become HumanDuration, missing values null.
 */
export function customResourcePrinter(specs: PrinterColumnSpec[] | undefined): TablePrinter {
  const columns =
    specs && specs.length > 0
      ? specs
      : [{ name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" } as PrinterColumnSpec];
  const definitions: TableColumn[] = [
    column("Name", "string", 0, NAME_DESCRIPTION, "name"),
    ...columns.map((c) =>
      column(
        c.name,
        (c.type as TableColumn["type"]) ?? "string",
        c.priority ?? 0,
        c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
        c.format ?? "",
      ),
    ),
  ];
  return {
    columns: () => definitions,
    row: (object: KubeObject, context: PrintContext) => ({
      cells: [object.metadata?.name ?? "", ...columns.map((c) => cell(c, object, context))],
    }),
  };
}

function cell(spec: PrinterColumnSpec, object: KubeObject, context: PrintContext): unknown {
  const value = evaluateJsonPath(object, spec.jsonPath);
  if (value === undefined || value === null) return null;
  switch (spec.type) {
    case "string":
      return typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
    case "integer":
      return typeof value === "number" ? Math.trunc(value) : null;
    case "number":
      return typeof value === "number" ? value : null;
    case "boolean":
      return typeof value === "boolean" ? value : null;
    case "date":
      if (typeof value !== "string") return null;
      return Number.isNaN(Date.parse(value)) ? "<invalid>" : since(value, context.now);
    default:
      return null;
  }
}

/**
 * The simple JSONPath subset CRDs use: `.a.b`, `.a[0]`, `.a[*].b` (first match),
 * `.a[?(@.type=="Ready")].status` and `\.` escapes inside keys.
 */
export function evaluateJsonPath(object: unknown, path: string): unknown {
  const text = path.trim().replace(/^\{(.*)\}$/, "$1");
  let current: unknown[] = [object];
  let i = text.startsWith("$") ? 1 : 0;
  while (i < text.length && current.length > 0) {
    if (text[i] === ".") {
      i++;
      let key = "";
      while (i < text.length && text[i] !== "." && text[i] !== "[") {
        if (text[i] === "\\" && i + 1 < text.length) i++;
        key += text[i++];
      }
      if (key === "") continue;
      current = current.flatMap((v) => (isRecord(v) && key in v ? [v[key]] : []));
    } else if (text[i] === "[") {
      const end = text.indexOf("]", i);
      if (end < 0) return undefined;
      const inner = text.slice(i + 1, end);
      i = end + 1;
      current = current.flatMap((v) => index(v, inner));
    } else {
      return undefined;
    }
  }
  return current[0];
}

function index(value: unknown, selector: string): unknown[] {
  if (!Array.isArray(value)) return [];
  if (selector === "*") return value;
  if (/^-?\d+$/.test(selector)) {
    const n = Number(selector);
    const item = n < 0 ? value[value.length + n] : value[n];
    return item === undefined ? [] : [item];
  }
  const filter = /^\?\(@\.([\w.-]+)\s*==\s*["']?([^"']*)["']?\)$/.exec(selector);
  if (!filter) return [];
  const [, key, expected] = filter;
  return value.filter((item) => {
    const actual = key.split(".").reduce<unknown>((acc, k) => (isRecord(acc) ? acc[k] : undefined), item);
    return actual !== undefined && String(actual) === expected;
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
