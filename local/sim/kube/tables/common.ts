import type { KubeObject, PrintContext, TableColumn, TablePrinter } from "../types.ts";

/**
 * `duration.HumanDuration` from apimachinery, rule for rule (kubernetes-api.md §5):
 * every unit integer-truncated, 365-day years, first matching row wins.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / 60_000);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / 3_600_000);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24) % 365;
    const years = Math.trunc(hours / 24 / 365);
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** `translateTimestampSince`: `<unknown>` for a zero/absent timestamp. */
export function since(timestamp: unknown, now: Date): string {
  if (typeof timestamp !== "string" || timestamp === "") return "<unknown>";
  const at = Date.parse(timestamp);
  if (Number.isNaN(at) || at <= 0) return "<unknown>";
  return humanDuration(now.getTime() - at);
}

export function age(object: KubeObject, context: PrintContext): string {
  return since(object.metadata?.creationTimestamp, context.now);
}

export const NAME_DESCRIPTION =
  "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";

export const AGE_DESCRIPTION =
  "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

export function column(
  name: string,
  type: TableColumn["type"] = "string",
  priority = 0,
  description = "",
  format = "",
): TableColumn {
  return { name, type, format, description, priority };
}

export const nameColumn = (): TableColumn => column("Name", "string", 0, NAME_DESCRIPTION, "name");
export const ageColumn = (): TableColumn => column("Age", "string", 0, AGE_DESCRIPTION);

/** Reads a nested field without caring about shape (objects are schemaless here). */
// biome-ignore lint/suspicious/noExplicitAny: objects are untyped JSON by design
export function field(object: unknown, ...path: Array<string | number>): any {
  let current: unknown = object;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

export function int(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? Math.trunc(value) : 0;
}

/** `labels.FormatLabels`: sorted `k=v` joined with `,`, `<none>` when empty. */
export function formatLabels(labels: unknown): string {
  if (!labels || typeof labels !== "object") return "<none>";
  const entries = Object.entries(labels as Record<string, string>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length === 0) return "<none>";
  return entries.map(([k, v]) => `${k}=${v}`).join(",");
}

/** `metav1.FormatLabelSelector`: requirements sorted by key, `<none>` when empty. */
export function formatLabelSelector(selector: unknown): string {
  const requirements: Array<[string, string]> = [];
  const matchLabels = field(selector, "matchLabels") ?? {};
  for (const [key, value] of Object.entries(matchLabels as Record<string, string>)) {
    requirements.push([key, `${key}=${value}`]);
  }
  for (const expression of (field(selector, "matchExpressions") ?? []) as Array<Record<string, unknown>>) {
    const key = String(expression.key ?? "");
    const values = [...((expression.values as string[]) ?? [])].sort();
    switch (expression.operator) {
      case "In":
        requirements.push([key, `${key} in (${values.join(",")})`]);
        break;
      case "NotIn":
        requirements.push([key, `${key} notin (${values.join(",")})`]);
        break;
      case "Exists":
        requirements.push([key, key]);
        break;
      case "DoesNotExist":
        requirements.push([key, `!${key}`]);
        break;
      default:
        return "<error>";
    }
  }
  if (requirements.length === 0) return "<none>";
  return requirements
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, text]) => text)
    .join(",");
}

/** CONTAINERS / IMAGES wide cells of workload printers. */
export function containerCells(podSpec: unknown): [string, string] {
  const containers = (field(podSpec, "containers") ?? []) as Array<{ name?: string; image?: string }>;
  return [containers.map((c) => c.name ?? "").join(","), containers.map((c) => c.image ?? "").join(",")];
}

/** kube-apiserver's default table convertor (`rest.NewDefaultTableConvertor`): NAME, CREATED AT. */
export const defaultPrinter: TablePrinter = {
  columns: () => [nameColumn(), column("Created At", "date", 0, AGE_DESCRIPTION)],
  row: (object) => ({
    cells: [object.metadata?.name ?? "", toRfc3339(object.metadata?.creationTimestamp)],
  }),
};

function toRfc3339(timestamp: unknown): string | null {
  if (typeof timestamp !== "string") return null;
  const at = Date.parse(timestamp);
  return Number.isNaN(at) ? null : new Date(at).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Builds a printer from a column list and a cell function, for the many fixed-column kinds. */
export function printer(
  columns: TableColumn[] | ((version: PrintContext["version"]) => TableColumn[]),
  cells: (object: KubeObject, context: PrintContext) => unknown[],
): TablePrinter {
  return {
    columns: typeof columns === "function" ? columns : () => columns,
    row: (object, context) => ({ cells: cells(object, context) }),
  };
}
