import { isMap, isSeq, parseAllDocuments, Scalar, type YAMLMap } from "yaml";

/**
 * Secret values never leave the product, in any format. Helm's `-o json` returns
 * chart Secrets' `data` in full; we keep the keys (so a reader sees *which* keys
 * exist) and replace every value. Applied by the fetcher before anything else sees
 * a live object, and to the stored manifest and hook manifests, which hold the
 * rendered Secret too.
 */
export const REDACTED = "<redacted>";

const SECRET_FIELDS = ["data", "stringData"] as const;
/** `kubectl apply` copies the whole object, values included, into this annotation. */
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
/** Columns of the Secret Table that hold no values (kube-apiserver prints NAME, TYPE, DATA, AGE). */
const SAFE_SECRET_COLUMNS = new Set(["name", "type", "data", "age", "created at"]);

export function isSecret(object: { apiVersion?: unknown; kind?: unknown }): boolean {
  return object.kind === "Secret" && (object.apiVersion === "v1" || object.apiVersion === undefined);
}

/** A copy of a live object with Secret values replaced; other kinds are returned as they are. */
export function redactObject<T>(object: T): T {
  if (typeof object !== "object" || object === null) return object;
  const record = object as Record<string, unknown>;
  if (Array.isArray(record.items)) {
    return { ...record, items: record.items.map((item) => redactObject(item)) } as T;
  }
  if (!isSecret(record)) return object;
  const copy: Record<string, unknown> = { ...record };
  for (const field of SECRET_FIELDS) {
    const values = copy[field];
    if (typeof values === "object" && values !== null) {
      copy[field] = Object.fromEntries(Object.keys(values).map((key) => [key, REDACTED]));
    } else if (values !== undefined) {
      copy[field] = REDACTED;
    }
  }
  const metadata = copy.metadata as Record<string, unknown> | undefined;
  const annotations = metadata?.annotations as Record<string, unknown> | undefined;
  if (annotations && LAST_APPLIED in annotations) {
    copy.metadata = { ...metadata, annotations: { ...annotations, [LAST_APPLIED]: REDACTED } };
  }
  return copy as T;
}

/**
 * Table cells are a leak path too (a printer column could point into `data`):
 * for Secrets only the columns known to hold no values are kept.
 */
export function redactCells(kind: string, columns: readonly { name: string }[], cells: readonly unknown[]): unknown[] {
  if (kind !== "Secret") return [...cells];
  return cells.map((cell, i) => (SAFE_SECRET_COLUMNS.has(columns[i]?.name.toLowerCase() ?? "") ? cell : REDACTED));
}

const SECRET_KIND_TEXT = /^\s*kind:\s*["']?Secret["']?\s*$/m;

/**
 * The stored manifest with Secret documents' values replaced. Other documents
 * are kept byte for byte (only Secret documents are re-serialised), so the
 * manifest still reads like Helm's. A Secret document that does not parse is
 * withheld whole: we cannot tell its values apart.
 */
export function redactManifest(manifest: string): string {
  if (!SECRET_KIND_TEXT.test(manifest)) return manifest;
  const documents = parseAllDocuments(manifest, { uniqueKeys: false });
  if (!Array.isArray(documents)) return manifest;
  let out = "";
  let cursor = 0;
  for (const doc of documents) {
    const [start, , end] = doc.range;
    const raw = manifest.slice(start, end);
    if (!SECRET_KIND_TEXT.test(raw)) continue;
    let replacement: string;
    if (doc.errors.length > 0 || !isMap(doc.contents)) {
      replacement = keepComments(raw) + "# (a Secret document that could not be parsed is withheld)\n";
    } else {
      if (!redactSecretNode(doc.contents)) continue;
      // toString keeps the `---` marker and the `# Source:` comment of the document.
      replacement = doc.toString({ lineWidth: 0 });
    }
    out += manifest.slice(cursor, start) + replacement;
    cursor = end;
  }
  return out + manifest.slice(cursor);
}

/** Redacts a parsed Secret (or a List of objects) in place; false when it is not one. */
function redactSecretNode(node: YAMLMap): boolean {
  const kind = node.get("kind");
  const items = node.get("items");
  if (typeof kind === "string" && kind.endsWith("List") && isSeq(items)) {
    let changed = false;
    for (const item of items.items) if (isMap(item) && redactSecretNode(item)) changed = true;
    return changed;
  }
  if (kind !== "Secret") return false;
  for (const field of SECRET_FIELDS) {
    const values = node.get(field);
    if (isMap(values)) {
      for (const pair of values.items) {
        pair.value = new Scalar(REDACTED);
      }
    } else if (values !== undefined) {
      node.set(field, REDACTED);
    }
  }
  const metadata = node.get("metadata");
  const annotations = isMap(metadata) ? metadata.get("annotations") : undefined;
  if (isMap(annotations) && annotations.has(LAST_APPLIED)) annotations.set(LAST_APPLIED, REDACTED);
  return true;
}

/** Leading comment lines (`# Source: ...`) and the `---` marker of a document's raw text. */
function keepComments(raw: string): string {
  return raw.match(/^(\s*(---[^\n]*|#[^\n]*)?\n)*/)?.[0] ?? "";
}
