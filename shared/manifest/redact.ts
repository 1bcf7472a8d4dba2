import { type Document, isMap, isSeq, parseAllDocuments, Scalar, stringify, visit, type YAMLMap } from "yaml";

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
  return isSecret(record) ? (redactSecretRecord(record) as T) : object;
}

function redactSecretRecord(record: Record<string, unknown>): Record<string, unknown> {
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
  return copy;
}

/**
 * Table cells are a leak path too (a printer column could point into `data`):
 * for Secrets only the columns known to hold no values are kept.
 */
export function redactCells(kind: string, columns: readonly { name: string }[], cells: readonly unknown[]): unknown[] {
  if (kind !== "Secret") return [...cells];
  return cells.map((cell, i) => (SAFE_SECRET_COLUMNS.has(columns[i]?.name.toLowerCase() ?? "") ? cell : REDACTED));
}

/**
 * Documents that may be (or hold) a Secret: the word itself, or a backslash, since
 * a double-quoted `"Secr\x65t"` or `"Sec\<newline>ret"` parses to "Secret" too.
 * Everything else is kept byte for byte without being parsed into values.
 */
const MAY_BE_SECRET = /Secret|\\/;
const WITHHELD_UNPARSED = "# (a Secret document that could not be parsed is withheld)\n";
const WITHHELD_UNSAFE = "# (a Secret document whose values could not be redacted safely is withheld)\n";

/**
 * The stored manifest with Secret documents' values replaced. Other documents
 * are kept byte for byte (only Secret documents are re-serialised), so the
 * manifest still reads like Helm's. Whether a document is a Secret is decided on
 * its parsed value, as the API server sees it (comments, JSON documents, List
 * items, tags, escapes, merge keys), not on its text; and the redacted text is
 * checked before it is used: a Secret document that does not parse, or whose
 * values would still show, is withheld whole.
 */
export function redactManifest(manifest: string): string {
  if (!MAY_BE_SECRET.test(manifest)) return manifest;
  // merge: sigs.k8s.io/yaml (go-yaml) resolves `<<` keys, so a Secret's data may arrive through one.
  const documents = parseAllDocuments(manifest, { uniqueKeys: false, merge: true });
  if (!Array.isArray(documents)) return manifest;
  let out = "";
  let cursor = 0;
  let previousEnd = 0;
  for (const doc of documents) {
    // From the previous document's end: comments before a document's range are printed with it by toString.
    const start = previousEnd;
    const end = doc.range[2];
    previousEnd = end;
    const raw = manifest.slice(start, end);
    if (!MAY_BE_SECRET.test(raw)) continue;
    const replacement = redactDocument(doc, raw);
    if (replacement === undefined) continue;
    out += manifest.slice(cursor, start) + replacement;
    cursor = end;
  }
  return out + manifest.slice(cursor);
}

/** The text to put in place of one document, or undefined to keep it as it is (no Secret in it). */
function redactDocument(doc: Document.Parsed, raw: string): string | undefined {
  if (doc.errors.length > 0) return /Secret/.test(raw) ? keepComments(raw) + WITHHELD_UNPARSED : undefined;
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch {
    return keepComments(raw) + WITHHELD_UNPARSED;
  }
  const values = secretValues(value);
  if (values === undefined) return undefined;
  // In place first: comments, key order and the `---` marker stay as written.
  const aliases = hasAlias(doc);
  if (isMap(doc.contents)) redactSecretNode(doc.contents);
  const inPlace = safeToString(doc);
  if (inPlace !== undefined && isRedacted(inPlace, values, aliases)) return inPlace;
  // Values the node walk cannot reach (a merge key, say): serialise the parsed value, redacted.
  const rebuilt = keepComments(raw) + stringify(redactObjectDeep(value), { lineWidth: 0 });
  return isRedacted(rebuilt, values, aliases) ? rebuilt : keepComments(raw) + WITHHELD_UNSAFE;
}

function safeToString(doc: Document.Parsed): string | undefined {
  try {
    // toString keeps the `---` marker and the `# Source:` comment of the document.
    return doc.toString({ lineWidth: 0 });
  } catch {
    return undefined;
  }
}

/**
 * The Secret values in a parsed document (a Secret, or a List holding Secrets),
 * or undefined when it holds no Secret. Values shorter than 4 characters are
 * left out of the later check: they would match unrelated text.
 */
function secretValues(value: unknown): string[] | undefined {
  const found: string[] = [];
  let secrets = 0;
  const visit = (object: unknown) => {
    if (typeof object !== "object" || object === null) return;
    const record = object as Record<string, unknown>;
    if (typeof record.kind === "string" && record.kind.endsWith("List") && Array.isArray(record.items)) {
      for (const item of record.items) visit(item);
      return;
    }
    if (record.kind !== "Secret") return;
    secrets += 1;
    for (const field of SECRET_FIELDS) collectStrings(record[field], found);
    const annotations = (record.metadata as { annotations?: Record<string, unknown> } | undefined)?.annotations;
    collectStrings(annotations?.[LAST_APPLIED], found);
  };
  visit(value);
  return secrets > 0 ? found.filter((text) => text.length >= 4) : undefined;
}

function collectStrings(value: unknown, into: string[]): void {
  if (typeof value === "string") into.push(value);
  else if (typeof value === "number" || typeof value === "boolean") into.push(String(value));
  else if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) collectStrings(inner, into);
  }
}

/**
 * The text is a faithful redaction: it parses and its Secrets hold only <redacted>
 * values. With `aliases` (a YAML alias can copy a value into, say, an annotation)
 * no value anywhere may equal a Secret value either; without them that check
 * would withhold a Secret named "postgres-creds" whose username is "postgres".
 */
function isRedacted(text: string, values: readonly string[], aliases: boolean): boolean {
  const secret = new Set(values);
  try {
    const reparsed = parseAllDocuments(text, { uniqueKeys: false, merge: true });
    if (!Array.isArray(reparsed)) return false;
    return reparsed.every((doc) => {
      if (doc.errors.length > 0) return false;
      const value = doc.toJS({ maxAliasCount: 100 });
      if (!(secretValues(value) ?? []).every((v) => v === REDACTED)) return false;
      if (!aliases) return true;
      const leaves: string[] = [];
      collectStrings(value, leaves);
      return !leaves.some((leaf) => secret.has(leaf));
    });
  } catch {
    return false;
  }
}

function hasAlias(doc: Document.Parsed): boolean {
  let found = false;
  visit(doc, {
    Alias: () => {
      found = true;
      return visit.BREAK;
    },
  });
  return found;
}

/** A parsed value with every Secret in it (List items too) redacted, whatever its apiVersion. */
function redactObjectDeep(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const record = value as Record<string, unknown>;
  if (typeof record.kind === "string" && record.kind.endsWith("List") && Array.isArray(record.items)) {
    return { ...record, items: record.items.map(redactObjectDeep) };
  }
  return record.kind === "Secret" ? redactSecretRecord(record) : record;
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
