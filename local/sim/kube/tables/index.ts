import type { KubeObject, PrintContext, ResourceType } from "../types.ts";

export type IncludeObject = "None" | "Metadata" | "Object";

/** A meta.k8s.io Table for objects of one resource, with kube-apiserver's columns and cells (wide ones included). */
export function buildTable(
  type: ResourceType,
  objects: KubeObject[],
  context: PrintContext,
  options: { includeObject: IncludeObject; tableVersion: string; listMeta?: Record<string, unknown> },
) {
  const columnDefinitions = type.printer.columns(context.version);
  const rows = objects.map((object) => {
    const row = type.printer.row(object, context);
    let embedded: unknown = null;
    if (options.includeObject === "Metadata") {
      embedded = {
        kind: "PartialObjectMetadata",
        apiVersion: `meta.k8s.io/${options.tableVersion}`,
        metadata: object.metadata,
      };
    } else if (options.includeObject === "Object") {
      embedded = object;
    }
    return { cells: row.cells, ...(row.conditions ? { conditions: row.conditions } : {}), object: embedded };
  });
  return {
    kind: "Table",
    apiVersion: `meta.k8s.io/${options.tableVersion}`,
    metadata: options.listMeta ?? {},
    columnDefinitions,
    rows,
  };
}
