/**
 * Who may read what in the dashboard (DASHBOARD_ACCESS, JSON or YAML, inline or in the file
 * DASHBOARD_ACCESS_FILE): bindings from the groups of a person's token to clusters x namespaces, the
 * same rule shape as the chatops access map (shared/access/grants.ts). Default deny: a person in no
 * bound group reads nothing.
 *
 *   groups:
 *     - group: platform            # or groups: [a, b]; "*": anyone with a valid token
 *       clusters: "*"
 *     - group: team-us
 *       clusters: [prod-us]
 *       namespaces: [shop, payments] # optional, default "*"
 *
 * The groups come from one claim of the token, named by DASHBOARD_GROUPS_CLAIM (default `groups`;
 * Cognito: `cognito:groups`, Entra ID: `groups` or `roles`), read from the verified token itself as a list
 * (verified-token.ts) and compared exactly: a group is never split, trimmed or case-folded, so a group named
 * `contractors platform-admins` is not `platform-admins`. A group name in the map that no token could carry
 * exactly (leading or trailing white space) is refused when the map is read.
 */
import { DashboardConfigError } from "./errors.ts";
import { defineAccessMap, type Grant, Grants, includes, type Names, parseGrant, parseNames } from "./grants.ts";

export interface GroupBinding extends Grant {
  groups: Names;
}

export interface ViewerAccessMap {
  groups: GroupBinding[];
}

export const DEFAULT_GROUPS_CLAIM = "groups";

const VIEWER_ACCESS = defineAccessMap<GroupBinding>({
  inline: "DASHBOARD_ACCESS",
  file: "DASHBOARD_ACCESS_FILE",
  ConfigError: DashboardConfigError,
  lists: ["groups"],
  fields: () => ["group", "groups", "clusters", "namespaces", "logs"],
  describe: () => "an object {group, clusters, namespaces?}",
  parse(record, _list, where, problems) {
    if (record.group !== undefined && record.groups !== undefined) {
      problems.push(`${where}: give "group" or "groups", not both`);
    }
    const groups = parseNames(record.groups ?? record.group, `${where}.group`, problems, true, exactGroupName);
    const grant = parseGrant(record, where, problems);
    return groups && grant ? { groups, ...grant } : undefined;
  },
});

/** DASHBOARD_ACCESS or DASHBOARD_ACCESS_FILE; neither is the empty map (every signed-in person reads nothing). */
export function loadViewerAccessMap(env: Record<string, string | undefined>): ViewerAccessMap {
  return { groups: VIEWER_ACCESS.load(env).groups };
}

/** Parses and validates the whole document, reporting every problem at once. */
export function parseViewerAccessMap(text: string, source: string): ViewerAccessMap {
  return { groups: VIEWER_ACCESS.parse(text, source).groups };
}

/**
 * What a person in `groups` (their token's groups claim, groupsOf) may read: the grants of every binding naming one
 * of them exactly, and of the "*" bindings.
 */
export function resolveViewer(map: ViewerAccessMap, groups: readonly string[]): Grants {
  return new Grants(map.groups.filter((b) => b.groups === "*" || groups.some((group) => includes(b.groups, group))));
}

/**
 * The groups claim of a verified token's payload (verified-token.ts), each group exactly as the IdP wrote it: a
 * JSON list of strings (Cognito, Entra ID, Okta), or one string that is one group. Never split on spaces or
 * commas: a group named `x,platform-admins` is that one group.
 */
export function groupsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string" && v !== "");
  return typeof value === "string" && value !== "" ? [value] : [];
}

/** A group name of the map: one a token can carry exactly (no leading or trailing white space). */
function exactGroupName(name: string): string {
  if (name !== name.trim()) {
    throw new Error(
      `group ${JSON.stringify(name)} has leading or trailing white space: groups are compared exactly, so no token's group would match it`,
    );
  }
  return name;
}
