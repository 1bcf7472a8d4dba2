/**
 * The one reader of an import document (the API's POST body, the CLI's FILE or
 * stdin): bytes -> text -> JSON/YAML -> the Kubernetes objects to import. Both
 * adapters call it, so both refuse the same inputs with the same words: text
 * that is not UTF-8, syntax errors (never quoting the input: it carries release
 * values), and documents with no Kubernetes object at all. An empty `List` is a
 * valid document with nothing to do.
 */
import { parse as parseYaml } from "yaml";
import { ValidationError } from "../errors.ts";
import { jsonErrorMessage, QUIET_YAML, yamlErrorMessage } from "../input/parse-errors.ts";
import { isRecord } from "../input/values.ts";

export class InvalidImportDocumentError extends ValidationError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, "InvalidImportDocument", options);
  }
}

/** How to read the text: as the media type says, or (the CLI) JSON first, then YAML. */
export type ImportSyntax = "json" | "yaml" | "auto";

export interface ImportDocumentOptions {
  syntax: ImportSyntax;
  /** How messages name the input: "the request body", "stdin", "\"file.json\"". */
  where: string;
}

/** Aliases a YAML import document may expand (yaml's default): more is an alias bomb, refused whole. */
const MAX_YAML_ALIASES = 100;
const EXPECTED = "expected a Helm release Secret or ConfigMap, or a List of them";
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Text from raw bytes, refusing invalid UTF-8 (which a lenient decoder turns silently into U+FFFD). */
export function decodeImportText(bytes: Uint8Array, where: string): string {
  try {
    return strictUtf8.decode(bytes);
  } catch (error) {
    throw new InvalidImportDocumentError(`${where} is not valid UTF-8 text`, { cause: error });
  }
}

/** Parses an import document and checks it holds Kubernetes objects; returns the parsed document. */
export function parseImportDocument(input: string | Uint8Array, options: ImportDocumentOptions): unknown {
  const { where } = options;
  const text = typeof input === "string" ? input : decodeImportText(input, where);
  // A JS string from an event can still hold lone surrogates, which no UTF-8 byte sequence encodes.
  if (!text.isWellFormed()) throw new InvalidImportDocumentError(`${where} is not valid UTF-8 text`);
  if (!text.trim()) {
    throw new InvalidImportDocumentError(
      `${where} is empty: ${EXPECTED} (e.g. \`kubectl get secrets -A -l owner=helm -o json\`)`,
    );
  }
  const document = parseText(text, options);
  importObjectsOf(document, where);
  return document;
}

function parseText(text: string, { syntax, where }: ImportDocumentOptions): unknown {
  if (syntax === "yaml") {
    return parseOrThrow(() => parseYamlText(text), `${where} is not valid YAML`, yamlErrorMessage);
  }
  if (syntax === "json") return parseOrThrow(() => JSON.parse(text), `${where} is not valid JSON`, jsonErrorMessage);
  try {
    return JSON.parse(text);
  } catch (jsonError) {
    // kubectl -o yaml output is accepted too, and `{...}`/`[...]` is YAML flow as well as JSON.
    try {
      return parseYamlText(text);
    } catch (yamlError) {
      // The kind of fault and its position only: never an excerpt (the input is release Secrets; CI keeps stderr).
      const looksJson = /^\s*[{[]/.test(text);
      throw new InvalidImportDocumentError(
        looksJson
          ? `${where} is not valid JSON: ${faultOf(jsonError, jsonErrorMessage)} (nor YAML: ${faultOf(yamlError, yamlErrorMessage)})`
          : `${where} is neither JSON nor YAML: ${faultOf(yamlError, yamlErrorMessage)}`,
        { cause: yamlError },
      );
    }
  }
}

function parseYamlText(text: string): unknown {
  return parseYaml(text, { ...QUIET_YAML, maxAliasCount: MAX_YAML_ALIASES });
}

function parseOrThrow(parse: () => unknown, what: string, describe: (error: unknown) => string): unknown {
  try {
    return parse();
  } catch (error) {
    throw new InvalidImportDocumentError(`${what}: ${faultOf(error, describe)}`, { cause: error });
  }
}

/** A stack overflow or an alias bomb is named as such, not as yaml's or V8's wording. */
function faultOf(error: unknown, describe: (error: unknown) => string): string {
  if (error instanceof RangeError) return "nested too deeply";
  if (/alias count|resource exhaustion/i.test((error as Error)?.message ?? "")) {
    return `more than ${MAX_YAML_ALIASES} alias expansions (a YAML alias bomb?)`;
  }
  return describe(error);
}

/**
 * The objects of a parsed document: a List's items, an array's elements, or the
 * object itself. A document in which nothing is a Kubernetes object (`{}`,
 * `[1,2,3]`, a bare string) is refused; an empty List has nothing to import.
 */
export function importObjectsOf(document: unknown, where = "the document"): unknown[] {
  let objects: unknown[];
  if (Array.isArray(document)) {
    objects = document;
  } else if (isRecord(document) && typeof document.kind === "string" && document.kind.endsWith("List")) {
    if (!Array.isArray(document.items)) {
      throw new InvalidImportDocumentError(`the ${document.kind} in ${where} has no items list`);
    }
    objects = document.items;
  } else {
    objects = [document];
  }
  // An empty List is what kubectl prints when nothing matched: valid, nothing to do. A bare [] is no object at all.
  const emptyList = objects.length === 0 && !Array.isArray(document);
  if (!emptyList && !objects.some(isKubernetesObject)) {
    throw new InvalidImportDocumentError(`${where} is not a Kubernetes object: ${EXPECTED} (objects with a kind)`);
  }
  return objects;
}

/** An object that says what it is (a `kind`); `{}`, numbers and strings are not. */
export function isKubernetesObject(value: unknown): boolean {
  return isRecord(value) && typeof value.kind === "string" && value.kind !== "";
}
