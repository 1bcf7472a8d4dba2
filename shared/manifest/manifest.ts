import { type Document, isMap, isScalar } from "yaml";
import { MAX_NESTING_DEPTH, nestedDeeperThan } from "../input/nesting.ts";
import { yamlErrorMessage } from "../input/parse-errors.ts";
import { isRecord } from "../input/values.ts";
import { parseGoYamlDocuments, toGoJson } from "../yaml/read.ts";

/**
 * The stored manifest -> the objects `helm status` looks up, in manifest order.
 *
 * Helm's manifest is a multi-document YAML stream where each document is
 * preceded by `# Source: chart/templates/x.yaml`. Documents may be empty (a
 * template rendered to nothing), and a `List` kind stands for its items
 * (Helm's builder flattens lists). A document that cannot be understood never
 * fails the whole status: it is returned as a problem for the report.
 */

export interface ManifestObject {
  apiVersion: string;
  kind: string;
  name: string;
  /** As written in the manifest; discovery decides later whether the kind is namespaced. */
  namespace?: string;
  /** The template path from the `# Source:` comment, when there is one. */
  source?: string;
  /** Position in the manifest (after flattening lists), so renderers can keep manifest order. */
  index: number;
  /** The manifest object itself (selectors for related pods come from here, like Helm). */
  object: Record<string, unknown>;
}

export interface ManifestProblem {
  /** What we could read of the broken document, for the MISSING section. */
  apiVersion?: string;
  kind?: string;
  name?: string;
  source?: string;
  message: string;
  /**
   * The document is beyond what the reader accepts (too many aliases, too deep):
   * Helm could not have applied it either, so import refuses such a manifest.
   */
  overLimit?: boolean;
}

export interface ParsedManifest {
  objects: ManifestObject[];
  problems: ManifestProblem[];
}

const SOURCE_COMMENT = /^#\s*Source:\s*(.+?)\s*$/m;
/** Aliases one document may expand (yaml's own default): a "billion laughs" document fails alone. */
export const MAX_MANIFEST_ALIASES = 100;

export function parseManifest(manifest: string): ParsedManifest {
  const objects: ManifestObject[] = [];
  const problems: ManifestProblem[] = [];
  if (!manifest.trim()) return { objects, problems };

  let list: Document[];
  try {
    // As Helm and the API server read it (YAML 1.1 scalars: `0644` is 420, `on` is true), not as YAML 1.2.
    list = parseGoYamlDocuments(manifest);
  } catch (error) {
    // The parser itself gave up (a stack overflow on pathological input): one problem for the manifest.
    return { objects, problems: [{ message: `invalid YAML: ${unreadable(error)}`, overLimit: isLimit(error) }] };
  }
  let previousEnd = 0;
  for (const doc of list) {
    const source = sourceOf(doc, manifest, previousEnd);
    previousEnd = doc.range?.[2] ?? previousEnd;
    if (doc.errors.length > 0) {
      problems.push({
        ...identityFromText(doc, manifest),
        source,
        // The manifest holds rendered Secrets: the fault and its position, never the quoted line.
        message: `invalid YAML: ${yamlErrorMessage(doc.errors[0])}`,
      });
      continue;
    }
    // An empty document: a template that rendered nothing.
    if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) continue;
    if (!isMap(doc.contents)) {
      problems.push({ source, message: "document is not a mapping" });
      continue;
    }
    let value: Record<string, unknown>;
    try {
      value = toGoJson(doc, MAX_MANIFEST_ALIASES) as Record<string, unknown>;
      if (nestedDeeperThan(value)) throw new RangeError(`nested deeper than ${MAX_NESTING_DEPTH} levels`);
    } catch (error) {
      // Any reason at all (an alias bomb, a stack overflow, a bug): this document fails, the others are read.
      problems.push({
        ...identityFromNodes(doc),
        source,
        message: `cannot read document: ${unreadable(error)}`,
        overLimit: isLimit(error),
      });
      continue;
    }
    collect(value, source, objects, problems);
  }
  return { objects, problems };
}

/** yaml's alias-count guard, a recursion overflow, or our depth bound. */
function isLimit(error: unknown): boolean {
  return error instanceof RangeError || /alias count|resource exhaustion/i.test((error as Error)?.message ?? "");
}

function unreadable(error: unknown): string {
  const message = (error as Error)?.message ?? String(error);
  if (/alias count|resource exhaustion/i.test(message)) {
    return `more than ${MAX_MANIFEST_ALIASES} alias expansions (a YAML alias bomb?)`;
  }
  if (error instanceof RangeError) return `nested deeper than ${MAX_NESTING_DEPTH} levels`;
  return yamlErrorMessage(error);
}

function collect(
  value: Record<string, unknown>,
  source: string | undefined,
  objects: ManifestObject[],
  problems: ManifestProblem[],
): void {
  const apiVersion = typeof value.apiVersion === "string" ? value.apiVersion : undefined;
  const kind = typeof value.kind === "string" ? value.kind : undefined;
  const metadata = isRecord(value.metadata) ? value.metadata : {};
  const name = typeof metadata.name === "string" ? metadata.name : undefined;

  if (kind?.endsWith("List") && Array.isArray(value.items)) {
    for (const item of value.items) {
      if (isRecord(item)) collect(item, source, objects, problems);
      else problems.push({ source, message: `an item of ${kind} is not an object` });
    }
    return;
  }
  const missing = [!apiVersion && "apiVersion", !kind && "kind", !name && "metadata.name"].filter(Boolean);
  if (missing.length > 0) {
    problems.push({ apiVersion, kind, name, source, message: `object has no ${missing.join(", ")}` });
    return;
  }
  const namespace = typeof metadata.namespace === "string" && metadata.namespace ? metadata.namespace : undefined;
  objects.push({
    apiVersion: apiVersion!,
    kind: kind!,
    name: name!,
    namespace,
    source,
    index: objects.length,
    object: value,
  });
}

/**
 * The `# Source:` line of a document. The parser puts a leading comment outside
 * the first document's range, and leaves commentBefore empty on parse errors,
 * so it is read from the raw text since the previous document's end.
 */
function sourceOf(doc: Document, text: string, previousEnd: number): string | undefined {
  const end = doc.range?.[2] ?? previousEnd;
  return text.slice(previousEnd, end).match(SOURCE_COMMENT)?.[1];
}

/** Identity of a document that parsed but cannot be converted: read off its nodes, no alias expanded. */
function identityFromNodes(doc: Document): Pick<ManifestProblem, "apiVersion" | "kind" | "name"> {
  const text = (path: string[]) => {
    try {
      const value = doc.getIn(path);
      return typeof value === "string" ? value : undefined;
    } catch {
      return undefined;
    }
  };
  return { apiVersion: text(["apiVersion"]), kind: text(["kind"]), name: text(["metadata", "name"]) };
}

/** Best effort identity of a document the YAML parser refused, so MISSING can name it. */
function identityFromText(doc: Document, text: string): Pick<ManifestProblem, "apiVersion" | "kind" | "name"> {
  const [start, , end] = doc.range ?? [0, 0, 0];
  const raw = text.slice(start, end);
  const field = (re: RegExp) => raw.match(re)?.[1]?.replace(/^["']|["']$/g, "");
  return {
    apiVersion: field(/^apiVersion:\s*(\S+)/m),
    kind: field(/^kind:\s*(\S+)/m),
    name: field(/^\s+name:\s*(\S+)/m),
  };
}

/** Re-exported for this area's modules (one definition, in shared/input/values.ts). */
export { isRecord };
