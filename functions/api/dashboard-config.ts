import { DashboardConfigError } from "../../shared/access/errors.ts";
import { DEFAULT_GROUPS_CLAIM, loadViewerAccessMap, type ViewerAccessMap } from "../../shared/access/viewer-access.ts";
import type { Env } from "../_shared/config.ts";

/**
 * The dashboard's settings (docs/dashboard.md), read at cold start with the API's:
 * - DASHBOARD_AUTH `jwt` (default: the dashboard's API routes need the claims of a token API Gateway's JWT
 *   authorizer verified) or `off` (no sign-in; every registry cluster is visible: `npm start`'s default);
 * - DASHBOARD_OIDC_ISSUER, DASHBOARD_OIDC_CLIENT_ID, DASHBOARD_OIDC_SCOPES: what the browser signs in with
 *   (served to it as /dashboard/config.json; the issuer and audience API Gateway checks are the same);
 * - DASHBOARD_GROUPS_CLAIM (default `groups`) and DASHBOARD_ACCESS / DASHBOARD_ACCESS_FILE: who sees what;
 * - DASHBOARD_OIDC_ORIGINS: origins besides the issuer's the page may call (the IdP's token endpoint when it lives
 *   elsewhere, e.g. Google's https://oauth2.googleapis.com; Cognito's hosted domain is added by itself);
 * - DASHBOARD_ASSETS_DIR: the built client (default `dashboard/dist` in the working directory, /var/task on Lambda).
 */
export interface DashboardConfig {
  auth: "jwt" | "off";
  oidc?: { issuer: string; clientId: string; scopes: string };
  /** Origins the page may fetch from besides its own: the issuer's, Cognito's hosted domains, DASHBOARD_OIDC_ORIGINS. */
  connectOrigins: string[];
  groupsClaim: string;
  access: ViewerAccessMap;
  assetsDir: string;
}

export function dashboardConfigFromEnv(env: Env): DashboardConfig {
  const problems: string[] = [];
  const auth = (env.DASHBOARD_AUTH?.trim() || "jwt").toLowerCase();
  if (auth !== "jwt" && auth !== "off")
    problems.push(`DASHBOARD_AUTH=${JSON.stringify(env.DASHBOARD_AUTH)} is not jwt or off`);
  const issuer = env.DASHBOARD_OIDC_ISSUER?.trim() ?? "";
  const clientId = env.DASHBOARD_OIDC_CLIENT_ID?.trim() ?? "";
  if (issuer) {
    let url: URL | undefined;
    try {
      url = new URL(issuer);
    } catch {
      problems.push(`DASHBOARD_OIDC_ISSUER=${JSON.stringify(issuer)} is not a URL`);
    }
    if (url && url.protocol !== "https:" && !isLoopback(url.hostname)) {
      problems.push("DASHBOARD_OIDC_ISSUER must be https (http only on loopback, for local tests)");
    }
  }
  if (Boolean(issuer) !== Boolean(clientId)) {
    problems.push("DASHBOARD_OIDC_ISSUER and DASHBOARD_OIDC_CLIENT_ID go together: set both or neither");
  }
  const groupsClaim = env.DASHBOARD_GROUPS_CLAIM?.trim() || DEFAULT_GROUPS_CLAIM;
  let access: ViewerAccessMap = { groups: [] };
  try {
    access = loadViewerAccessMap(env);
  } catch (error) {
    problems.push((error as Error).message);
  }
  const connectOrigins: string[] = [];
  if (issuer && !problems.length) {
    const url = new URL(issuer);
    connectOrigins.push(url.origin);
    // Cognito: the issuer is cognito-idp.<region>.amazonaws.com, its token endpoint the user pool's domain.
    if (/^cognito-idp\.[a-z0-9-]+\.amazonaws\.com$/.test(url.hostname))
      connectOrigins.push("https://*.amazoncognito.com");
  }
  for (const origin of (env.DASHBOARD_OIDC_ORIGINS ?? "")
    .split(",")
    .map((o) => o.trim())
    .filter(Boolean)) {
    if (!/^https:\/\/[a-z0-9.*-]+(:\d+)?$/i.test(origin))
      problems.push(`DASHBOARD_OIDC_ORIGINS: ${JSON.stringify(origin)} is not an https origin`);
    else connectOrigins.push(origin);
  }
  if (problems.length > 0) throw new DashboardConfigError(problems.join("; "));
  return {
    connectOrigins,
    auth: auth as "jwt" | "off",
    ...(issuer
      ? { oidc: { issuer, clientId, scopes: env.DASHBOARD_OIDC_SCOPES?.trim() || "openid profile email" } }
      : {}),
    groupsClaim,
    access,
    assetsDir: env.DASHBOARD_ASSETS_DIR?.trim() || "dashboard/dist",
  };
}

/** Without settings: sign-in required and an empty access map (nobody sees anything). */
export const LOCKED_DASHBOARD: DashboardConfig = {
  auth: "jwt",
  groupsClaim: DEFAULT_GROUPS_CLAIM,
  access: { groups: [] },
  assetsDir: "dashboard/dist",
  connectOrigins: [],
};

function isLoopback(host: string): boolean {
  return host === "127.0.0.1" || host === "localhost" || host === "[::1]";
}
