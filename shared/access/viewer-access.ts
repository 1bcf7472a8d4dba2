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
 * Cognito: `cognito:groups`, Entra ID: `groups` or `roles`).
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
  fields: () => ["group", "groups", "clusters", "namespaces"],
  describe: () => "an object {group, clusters, namespaces?}",
  parse(record, _list, where, problems) {
    if (record.group !== undefined && record.groups !== undefined) {
      problems.push(`${where}: give "group" or "groups", not both`);
    }
    const groups = parseNames(record.groups ?? record.group, `${where}.group`, problems, true);
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

/** What a person with these token claims may read: the grants of every binding one of their groups matches. */
export function resolveViewer(map: ViewerAccessMap, claims: Record<string, unknown>, claimName: string): Grants {
  const groups = groupsOf(claims[claimName]);
  return new Grants(map.groups.filter((b) => b.groups === "*" || groups.some((group) => includes(b.groups, group))));
}

/**
 * A groups claim as a list. Tokens carry a JSON list; API Gateway's JWT authorizer hands a list claim to
 * the function flattened to one string, `[a b c]`; some IdPs send one space- or comma-separated string.
 */
export function groupsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string" && v !== "");
  if (typeof value !== "string") return [];
  const inner = value.startsWith("[") && value.endsWith("]") ? value.slice(1, -1) : value;
  return inner.split(/[\s,]+/).filter(Boolean);
}
