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
import { attempt, defineAccessMap, Grants, includes, type Names, parseGrant, parseNames } from "../access/grants.ts";
import { validateClusterName, validateNamespace } from "../release/validation.ts";
import { ChatopsConfigError } from "./errors.ts";
import {
  type ChatCaller,
  type ChatPlatform,
  type ChatPlatformIdentity,
  PLATFORM_IDENTITIES,
  platformIdentity,
} from "./platform-identity.ts";

export type { ChatCaller, ChatPlatform };

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
  Object.fromEntries(Object.keys(PLATFORM_IDENTITIES).map((name) => [name, []])),
);

/** What one caller may do, resolved once per request: the matching bindings' grants and the channel's defaults. */
export class ChannelAccess extends Grants {
  readonly #bindings: readonly AccessBinding[];
  constructor(bindings: readonly AccessBinding[]) {
    super(bindings);
    this.#bindings = bindings;
  }
  get defaults(): { cluster?: string; namespace?: string } {
    return {
      cluster: this.#bindings.find((b) => b.defaults.cluster)?.defaults.cluster,
      namespace: this.#bindings.find((b) => b.defaults.namespace)?.defaults.namespace,
    };
  }
}

/** The caller's bindings: only its own platform's (none for a platform the map or the records do not know). */
export function resolveAccess(map: AccessMap, caller: ChatCaller): ChannelAccess {
  const bindings = platformIdentity(caller.platform) ? (map[caller.platform] ?? []) : [];
  return new ChannelAccess(
    bindings.filter(
      (b) =>
        (b.team === "*" || b.team === caller.team) &&
        includes(b.channels, caller.channel) &&
        (b.users === undefined || b.users.includes(caller.user)),
    ),
  );
}

const PLATFORMS = Object.values(PLATFORM_IDENTITIES);
const WORKSPACE_FIELDS = [...new Set(PLATFORMS.map((platform) => platform.workspaceField))];
const BINDING_FIELDS = [...WORKSPACE_FIELDS, "channel", "channels", "users", "clusters", "namespaces", "defaults"];

const CHAT_ACCESS = defineAccessMap<AccessBinding>({
  inline: "CHATOPS_ACCESS",
  file: "CHATOPS_ACCESS_FILE",
  ConfigError: ChatopsConfigError,
  lists: PLATFORMS.map((platform) => platform.name),
  fields: () => BINDING_FIELDS,
  describe: (name) => `an object {${PLATFORM_IDENTITIES[name].workspaceField}, channels, clusters, ...}`,
  parse: (record, name, where, problems) => parseBinding(record, PLATFORM_IDENTITIES[name], where, problems),
});

/** CHATOPS_ACCESS (inline) or CHATOPS_ACCESS_FILE; neither is the empty map (everything denied). */
export function loadAccessMap(env: Record<string, string | undefined>): AccessMap {
  return CHAT_ACCESS.load(env);
}

/** Parses and validates the whole document, reporting every problem at once. */
export function parseAccessMap(text: string, source: string): AccessMap {
  return CHAT_ACCESS.parse(text, source);
}

function parseBinding(
  record: Record<string, unknown>,
  platform: ChatPlatformIdentity,
  where: string,
  problems: string[],
): AccessBinding | undefined {
  const teamKey = platform.workspaceField;
  const before = problems.length;
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
  const channels = parseNames(
    record.channels ?? (typeof record.channel === "string" ? [record.channel] : record.channel),
    `${where}.channels`,
    problems,
    true,
  );
  const grant = parseGrant(record, where, problems);
  const clusters = grant?.clusters;
  const namespaces = grant?.namespaces;
  let users: string[] | undefined;
  if (record.users !== undefined) {
    const list = parseNames(record.users, `${where}.users`, problems, false);
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
