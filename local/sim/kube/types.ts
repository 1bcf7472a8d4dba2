/** A Kubernetes object as JSON; the simulator keeps objects schemaless like etcd does. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: Array<{ apiVersion: string; kind: string; name: string; uid: string; controller?: boolean }>;
  [field: string]: unknown;
}

export interface ServerVersion {
  major: number;
  minor: number;
}

export interface TableColumn {
  name: string;
  type: "string" | "integer" | "number" | "boolean" | "date";
  format: string;
  description: string;
  priority: number;
}

export interface TableRowCells {
  cells: unknown[];
  conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
}

export interface PrintContext {
  now: Date;
  version: ServerVersion;
}

/** kube-apiserver's per-kind printer: its columns (which may depend on the server version) and one row per object. */
export interface TablePrinter {
  columns(version: ServerVersion): TableColumn[];
  row(object: KubeObject, context: PrintContext): TableRowCells;
}

/** One servable resource (a REST mapping): what discovery lists and what the router serves. */
export interface ResourceType {
  group: string;
  /** Served versions; the first is the preferred one. */
  versions: string[];
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: string[];
  printer: TablePrinter;
  /** The CRD that defines it, for custom resources. */
  crdName?: string;
}

export const ALL_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
