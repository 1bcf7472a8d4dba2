/**
 * Who may read what from chat (CHATOPS_ACCESS, JSON or YAML, inline or in the
 * file CHATOPS_ACCESS_FILE). Default deny: a team/channel no binding names can
 * read nothing. A binding grants clusters x namespaces to a Slack team + channels
 * (or a Teams tenant + channels), optionally only to some users, and may give
 * the channel's default cluster and namespace:
 *
 *   slack:
 *     - team: T0123ABCD
 *       channels: [C0456EFGH]        # or "*": every channel of the team
 *       users: [U0789IJKL]           # optional
 *       clusters: [prod-eu, prod-us] # or "*"
 *       namespaces: [shop]           # optional, default "*"
 *       defaults: { cluster: prod-eu, namespace: shop }
 *   teams:
 *     - tenant: 72f988bf-86f1-41af-91ab-2d7cd011db47
 *       channels: ["19:abc@thread.tacv2"]
 *       clusters: "*"
 *
 * Several bindings may match one request: the grants add up, and the defaults
 * come from the first matching binding that has them (file order).
 */
import { parse } from "yaml";
import { inlineOrFile } from "../input/env.ts";
import { firstLine } from "../input/values.ts";
import { validateClusterName, validateNamespace } from "../release/validation.ts";
import { ChatopsConfigError } from "./errors.ts";
import { CHAT_PLATFORMS, type ChatPlatformRecord, chatPlatform } from "./platforms.ts";

/** A platform's name: a key of CHAT_PLATFORMS (platforms.ts). */
export type ChatPlatform = string;

export interface ChatCaller {
  platform: ChatPlatform;
  /** The platform's workspace id (Slack team, Teams tenant). */
  team: string;
  channel: string;
  user: string;
}

type Names = "*" | readonly string[];

export interface AccessBinding {
  team: string;
  channels: Names;
  users?: readonly string[];
  clusters: Names;
  namespaces: Names;
  defaults: { cluster?: string; namespace?: string };
}

/** Each recorded platform's bindings, by its name. */
export type AccessMap = Readonly<Record<ChatPlatform, AccessBinding[]>>;

/** Nothing configured: every platform present, with no binding (everything denied). */
export const EMPTY_ACCESS: AccessMap = Object.freeze(
  Object.fromEntries(Object.keys(CHAT_PLATFORMS).map((name) => [name, []])),
);

/** What one caller may do, resolved once per request. */
export class ChannelAccess {
  readonly #bindings: readonly AccessBinding[];
  constructor(bindings: readonly AccessBinding[]) {
    this.#bindings = bindings;
  }
  /** No binding matched: the channel (or user) may read nothing. */
  get none(): boolean {
    return this.#bindings.length === 0;
  }
  get defaults(): { cluster?: string; namespace?: string } {
    return {
      cluster: this.#bindings.find((b) => b.defaults.cluster)?.defaults.cluster,
      namespace: this.#bindings.find((b) => b.defaults.namespace)?.defaults.namespace,
    };
  }
  /** May read `namespace` of `cluster` (no namespace: any namespace at all of it). */
  allows(cluster: string, namespace?: string): boolean {
    return this.#bindings.some(
      (b) => includes(b.clusters, cluster) && (namespace === undefined || includes(b.namespaces, namespace)),
    );
  }
  /** The namespaces of `cluster` this caller may read ("*" for all). */
  namespacesOf(cluster: string): "*" | Set<string> {
    const names = new Set<string>();
    for (const b of this.#bindings) {
      if (!includes(b.clusters, cluster)) continue;
      if (b.namespaces === "*") return "*";
      for (const ns of b.namespaces) names.add(ns);
    }
    return names;
  }
  /** The clusters (of `known`) this caller may read at least one namespace of. */
  clustersOf(known: readonly string[]): string[] {
    return known.filter((cluster) => this.allows(cluster));
  }
}

/** The caller's bindings: only its own platform's (none for a platform the map or the records do not know). */
export function resolveAccess(map: AccessMap, caller: ChatCaller): ChannelAccess {
  const bindings = chatPlatform(caller.platform) ? (map[caller.platform] ?? []) : [];
  return new ChannelAccess(
    bindings.filter(
      (b) =>
        (b.team === "*" || b.team === caller.team) &&
        includes(b.channels, caller.channel) &&
        (b.users === undefined || b.users.includes(caller.user)),
    ),
  );
}

function includes(names: Names, name: string): boolean {
  return names === "*" || names.includes(name);
}

/** CHATOPS_ACCESS (inline) or CHATOPS_ACCESS_FILE; neither is the empty map (everything denied). */
export function loadAccessMap(env: Record<string, string | undefined>): AccessMap {
  const given = inlineOrFile(
    env,
    "CHATOPS_ACCESS",
    "CHATOPS_ACCESS_FILE",
    (message, options) => new ChatopsConfigError(message, options),
  );
  return given === undefined ? EMPTY_ACCESS : parseAccessMap(given.text, given.source);
}

const PLATFORMS = Object.values(CHAT_PLATFORMS);
const WORKSPACE_FIELDS = [...new Set(PLATFORMS.map((platform) => platform.workspaceField))];
const BINDING_FIELDS = [...WORKSPACE_FIELDS, "channel", "channels", "users", "clusters", "namespaces", "defaults"];
const NAMES = PLATFORMS.map((platform) => platform.name);

/** Parses and validates the whole document, reporting every problem at once. */
export function parseAccessMap(text: string, source: string): AccessMap {
  let document: unknown;
  try {
    document = parse(text, { uniqueKeys: true, prettyErrors: false, maxAliasCount: 0 });
  } catch (error) {
    const reason = firstLine(error);
    throw new ChatopsConfigError(`${source}: not valid JSON or YAML: ${reason}`, { cause: error });
  }
  if (document === null || document === undefined) return EMPTY_ACCESS;
  const problems: string[] = [];
  if (typeof document !== "object" || Array.isArray(document)) {
    const lists = NAMES.map((name) => `"${name}"`).join(" and/or ");
    throw new ChatopsConfigError(`${source}: expected an object with ${lists} lists of bindings`);
  }
  const root = document as Record<string, unknown>;
  for (const key of Object.keys(root)) {
    if (!NAMES.includes(key)) problems.push(`unknown key "${key}" (allowed: ${NAMES.join(", ")})`);
  }
  const map: Record<ChatPlatform, AccessBinding[]> = {};
  for (const platform of PLATFORMS) {
    map[platform.name] = [];
    const list = root[platform.name];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) {
      problems.push(`"${platform.name}" must be a list of bindings`);
      continue;
    }
    list.forEach((item, index) => {
      const binding = parseBinding(item, platform, `${platform.name}[${index}]`, problems);
      if (binding) map[platform.name].push(binding);
    });
  }
  if (problems.length > 0) throw new ChatopsConfigError(`${source}: ${problems.join("; ")}`);
  return map;
}

function parseBinding(
  item: unknown,
  platform: ChatPlatformRecord,
  where: string,
  problems: string[],
): AccessBinding | undefined {
  const teamKey = platform.workspaceField;
  if (item === null || typeof item !== "object" || Array.isArray(item)) {
    problems.push(`${where}: expected an object {${teamKey}, channels, clusters, ...}`);
    return undefined;
  }
  const record = item as Record<string, unknown>;
  const before = problems.length;
  for (const key of Object.keys(record)) {
    if (!BINDING_FIELDS.includes(key)) problems.push(`${where}: unknown field "${key}"`);
  }
  for (const wrongKey of WORKSPACE_FIELDS.filter((field) => field !== teamKey)) {
    if (record[wrongKey] !== undefined)
      problems.push(`${where}: ${platform.name} bindings name a "${teamKey}", not a "${wrongKey}"`);
  }
  const team = record[teamKey];
  if (typeof team !== "string" || team.trim() === "")
    problems.push(`${where}: "${teamKey}" (an id, or "*") is required`);
  if (record.channel !== undefined && record.channels !== undefined) {
    problems.push(`${where}: give "channel" or "channels", not both`);
  }
  const channels = names(
    record.channels ?? (typeof record.channel === "string" ? [record.channel] : record.channel),
    `${where}.channels`,
    problems,
    true,
  );
  const clusters = names(record.clusters, `${where}.clusters`, problems, true, (name) => validateClusterName(name));
  const namespaces =
    record.namespaces === undefined
      ? "*"
      : names(record.namespaces, `${where}.namespaces`, problems, true, (name) => validateNamespace(name));
  let users: string[] | undefined;
  if (record.users !== undefined) {
    const list = names(record.users, `${where}.users`, problems, false);
    if (list === "*") problems.push(`${where}.users: leave it out to allow every user`);
    else users = [...(list ?? [])];
  }
  const defaults: { cluster?: string; namespace?: string } = {};
  if (record.defaults !== undefined) {
    const d = record.defaults as Record<string, unknown>;
    if (d === null || typeof d !== "object" || Array.isArray(d))
      problems.push(`${where}.defaults: expected {cluster?, namespace?}`);
    else {
      for (const key of Object.keys(d)) {
        if (key !== "cluster" && key !== "namespace") problems.push(`${where}.defaults: unknown field "${key}"`);
      }
      if (d.cluster !== undefined) {
        const cluster = attempt(() => validateClusterName(d.cluster), `${where}.defaults.cluster`, problems);
        if (cluster && clusters && clusters !== "*" && !clusters.includes(cluster)) {
          problems.push(`${where}.defaults.cluster "${cluster}" is not one of the binding's clusters`);
        }
        defaults.cluster = cluster;
      }
      if (d.namespace !== undefined) {
        const namespace = attempt(() => validateNamespace(d.namespace), `${where}.defaults.namespace`, problems);
        if (namespace && namespaces && namespaces !== "*" && !namespaces.includes(namespace)) {
          problems.push(`${where}.defaults.namespace "${namespace}" is not one of the binding's namespaces`);
        }
        defaults.namespace = namespace;
      }
    }
  }
  if (problems.length > before || !channels || !clusters || !namespaces) return undefined;
  return { team: (team as string).trim(), channels, ...(users ? { users } : {}), clusters, namespaces, defaults };
}

function names(
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

function attempt<T>(read: () => T, where: string, problems: string[]): T | undefined {
  try {
    return read();
  } catch (error) {
    problems.push(`${where}: ${(error as Error).message}`);
    return undefined;
  }
}
