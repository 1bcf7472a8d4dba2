/**
 * Grants of clusters x namespaces: the one rule shape behind every access map (chat channels in
 * CHATOPS_ACCESS, dashboard groups in DASHBOARD_ACCESS). A binding names who it is for (a channel, a
 * group: the map's own business) and what it grants; several matching bindings add up; nothing matching
 * is default deny. `defineAccessMap` reads a map's document (inline or a file, JSON or YAML, lists of bindings)
 * for both maps, every problem at once; a map brings only what its own bindings hold (who they are for).
 */
import { parse } from "yaml";
import type { DomainError } from "../errors.ts";
import { type Env, inlineOrFile } from "../input/env.ts";
import { firstLine } from "../input/values.ts";
import { validateClusterName, validateNamespace } from "../release/validation.ts";

export type Names = "*" | readonly string[];

/** What one binding grants: clusters (or "*") x namespaces (or "*"), and whether log excerpts too (`logs: true`). */
export interface Grant {
  clusters: Names;
  namespaces: Names;
  logs?: boolean;
}

export function includes(names: Names, name: string): boolean {
  return names === "*" || names.includes(name);
}

/** What one caller may read: the union of the grants of every binding that matched it. */
export class Grants {
  readonly #grants: readonly Grant[];
  constructor(grants: readonly Grant[]) {
    this.#grants = grants;
  }
  /** No binding matched: the caller may read nothing. */
  get none(): boolean {
    return this.#grants.length === 0;
  }
  /** May read `namespace` of `cluster` (no namespace: any namespace at all of it). */
  allows(cluster: string, namespace?: string): boolean {
    return this.#grants.some(
      (g) => includes(g.clusters, cluster) && (namespace === undefined || includes(g.namespaces, namespace)),
    );
  }
  /** May read log excerpts of `namespace` of `cluster`: a binding granting it with `logs: true` (docs/status.md). */
  allowsLogs(cluster: string, namespace: string): boolean {
    return this.#grants.some(
      (g) => g.logs === true && includes(g.clusters, cluster) && includes(g.namespaces, namespace),
    );
  }
  /** The namespaces of `cluster` this caller may read ("*" for all). */
  namespacesOf(cluster: string): "*" | Set<string> {
    const names = new Set<string>();
    for (const g of this.#grants) {
      if (!includes(g.clusters, cluster)) continue;
      if (g.namespaces === "*") return "*";
      for (const ns of g.namespaces) names.add(ns);
    }
    return names;
  }
  /** The clusters (of `known`) this caller may read at least one namespace of. */
  clustersOf(known: readonly string[]): string[] {
    return known.filter((cluster) => this.allows(cluster));
  }
}

type ConfigError = new (message: string, options?: { cause?: unknown }) => DomainError;

/**
 * The text of a rule document from `<inline>` or `<file>` (never both); neither: undefined. A file that
 * cannot be read is a configuration error naming it.
 */
function readRuleDocument(
  env: Env,
  inlineName: string,
  fileName: string,
  ConfigErrorClass: ConfigError,
): { text: string; source: string } | undefined {
  return inlineOrFile(env, inlineName, fileName, (message, options) => new ConfigErrorClass(message, options));
}

/** JSON or YAML (no aliases, unique keys); a syntax error is a configuration error naming the source. */
function parseRuleDocument(text: string, source: string, ConfigErrorClass: ConfigError): unknown {
  try {
    return parse(text, { uniqueKeys: true, prettyErrors: false, maxAliasCount: 0 });
  } catch (error) {
    throw new ConfigErrorClass(`${source}: not valid JSON or YAML: ${firstLine(error)}`, { cause: error });
  }
}

/**
 * How one access map's document reads: top-level keys, each a list of bindings (the dashboard's `groups`, a
 * chat platform's name), and what one binding of a list is.
 */
export interface AccessMapSpec<B> {
  /** The variables holding the document inline or naming its file (one, not both). */
  inline: string;
  file: string;
  ConfigError: ConfigError;
  /** The top-level keys, each a list of bindings. */
  lists: readonly string[];
  /** The fields a binding of `list` may have; any other is a problem. */
  fields(list: string): readonly string[];
  /** A binding of `list` as the message for a non-object says it: `an object {group, clusters, namespaces?}`. */
  describe(list: string): string;
  /** One binding (an object without unknown fields; see parseGrant), its problems pushed to `problems`. */
  parse(record: Record<string, unknown>, list: string, where: string, problems: string[]): B | undefined;
}

/** An access map's reader: every list of bindings, each list empty when nothing is configured. */
export interface AccessMapDocument<B> {
  /** From the environment (`inline` or `file`; neither: every list empty). */
  load(env: Env): Record<string, B[]>;
  /** The document's text; every problem is reported at once, prefixed by `source`; an empty text: every list empty. */
  parse(text: string, source: string): Record<string, B[]>;
}

export function defineAccessMap<B>(spec: AccessMapSpec<B>): AccessMapDocument<B> {
  const empty = () => Object.fromEntries(spec.lists.map((name) => [name, [] as B[]]));
  const names = spec.lists.map((name) => `"${name}"`);
  const expected = `an object with ${names.length === 1 ? `a ${names[0]} list` : `${names.join(" and/or ")} lists`} of bindings`;

  const parse = (text: string, source: string) => {
    const document = parseRuleDocument(text, source, spec.ConfigError);
    const lists = empty();
    if (document === null || document === undefined) return lists;
    const problems: string[] = [];
    const root = asRecord(document, source, expected, problems);
    if (!root) throw new spec.ConfigError(problems.join("; "));
    for (const key of Object.keys(root)) {
      if (!spec.lists.includes(key)) problems.push(`unknown key "${key}" (allowed: ${spec.lists.join(", ")})`);
    }
    for (const name of spec.lists) {
      const list = root[name];
      if (list === undefined || list === null) continue;
      if (!Array.isArray(list)) {
        problems.push(`"${name}" must be a list of bindings`);
        continue;
      }
      const fields = spec.fields(name);
      list.forEach((item, index) => {
        const where = `${name}[${index}]`;
        const record = asRecord(item, where, spec.describe(name), problems);
        if (!record) return;
        const before = problems.length;
        for (const key of Object.keys(record)) {
          if (!fields.includes(key)) problems.push(`${where}: unknown field "${key}"`);
        }
        const binding = spec.parse(record, name, where, problems);
        if (binding && problems.length === before) lists[name].push(binding);
      });
    }
    if (problems.length > 0) throw new spec.ConfigError(`${source}: ${problems.join("; ")}`);
    return lists;
  };

  return {
    parse,
    load(env) {
      const document = readRuleDocument(env, spec.inline, spec.file, spec.ConfigError);
      return document ? parse(document.text, document.source) : empty();
    },
  };
}

/**
 * A binding's `clusters` (required), `namespaces` (default "*") and `logs` (default false: log excerpts are a grant
 * of their own), validated as the API validates names.
 */
export function parseGrant(record: Record<string, unknown>, where: string, problems: string[]): Grant | undefined {
  const clusters = parseNames(record.clusters, `${where}.clusters`, problems, true, (name) =>
    validateClusterName(name),
  );
  const namespaces =
    record.namespaces === undefined
      ? "*"
      : parseNames(record.namespaces, `${where}.namespaces`, problems, true, (name) => validateNamespace(name));
  if (record.logs !== undefined && typeof record.logs !== "boolean")
    problems.push(`${where}.logs: expected true or false`);
  if (!clusters || !namespaces) return undefined;
  return record.logs === true ? { clusters, namespaces, logs: true } : { clusters, namespaces };
}

/** A list of names or "*" (a lone string is a list of one); each checked by `validate` when given. */
export function parseNames(
  value: unknown,
  where: string,
  problems: string[],
  required: boolean,
  validate?: (name: string) => string,
): Names | undefined {
  if (value === undefined || value === null) {
    if (required) problems.push(`${where}: required (a list of names, or "*")`);
    return undefined;
  }
  if (value === "*") return "*";
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list) || list.some((name) => typeof name !== "string" || name.trim() === "")) {
    problems.push(`${where}: expected a list of names, or "*"`);
    return undefined;
  }
  if (list.includes("*")) return "*";
  const out: string[] = [];
  for (const name of list as string[]) {
    const checked = validate ? attempt(() => validate(name), where, problems) : name.trim();
    if (checked) out.push(checked);
  }
  return out;
}

export function attempt<T>(read: () => T, where: string, problems: string[]): T | undefined {
  try {
    return read();
  } catch (error) {
    problems.push(`${where}: ${(error as Error).message}`);
    return undefined;
  }
}

/** An object (not null, not a list), else a problem saying what was expected. */
function asRecord(item: unknown, where: string, expected: string, problems: string[]) {
  if (item === null || typeof item !== "object" || Array.isArray(item)) {
    problems.push(`${where}: expected ${expected}`);
    return undefined;
  }
  return item as Record<string, unknown>;
}
