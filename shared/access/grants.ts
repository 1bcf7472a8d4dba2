/**
 * Grants of clusters x namespaces: the one rule shape behind every access map (chat channels in
 * CHATOPS_ACCESS, dashboard groups in DASHBOARD_ACCESS). A binding names who it is for (a channel, a
 * group: the map's own business) and what it grants; several matching bindings add up; nothing matching
 * is default deny. The parsing helpers here report every problem of a document at once.
 */
import { parse } from "yaml";
import type { DomainError } from "../errors.ts";
import { type Env, inlineOrFile } from "../input/env.ts";
import { firstLine } from "../input/values.ts";
import { validateClusterName, validateNamespace } from "../release/validation.ts";

export type Names = "*" | readonly string[];

/** What one binding grants: clusters (or "*") x namespaces (or "*"). */
export interface Grant {
  clusters: Names;
  namespaces: Names;
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
export function readRuleDocument(
  env: Env,
  inlineName: string,
  fileName: string,
  ConfigErrorClass: ConfigError,
): { text: string; source: string } | undefined {
  return inlineOrFile(env, inlineName, fileName, (message, options) => new ConfigErrorClass(message, options));
}

/** JSON or YAML (no aliases, unique keys); a syntax error is a configuration error naming the source. */
export function parseRuleDocument(text: string, source: string, ConfigErrorClass: ConfigError): unknown {
  try {
    return parse(text, { uniqueKeys: true, prettyErrors: false, maxAliasCount: 0 });
  } catch (error) {
    throw new ConfigErrorClass(`${source}: not valid JSON or YAML: ${firstLine(error)}`, { cause: error });
  }
}

/** A binding's `clusters` (required) and `namespaces` (default "*"), validated as the API validates names. */
export function parseGrant(record: Record<string, unknown>, where: string, problems: string[]): Grant | undefined {
  const clusters = parseNames(record.clusters, `${where}.clusters`, problems, true, (name) =>
    validateClusterName(name),
  );
  const namespaces =
    record.namespaces === undefined
      ? "*"
      : parseNames(record.namespaces, `${where}.namespaces`, problems, true, (name) => validateNamespace(name));
  return clusters && namespaces ? { clusters, namespaces } : undefined;
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
export function asRecord(item: unknown, where: string, expected: string, problems: string[]) {
  if (item === null || typeof item !== "object" || Array.isArray(item)) {
    problems.push(`${where}: expected ${expected}`);
    return undefined;
  }
  return item as Record<string, unknown>;
}
