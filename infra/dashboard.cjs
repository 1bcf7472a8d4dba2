/**
 * The dashboard's settings for serverless.yml, `${file(./infra/dashboard.cjs):...}` (docs/dashboard.md):
 * - `accessJson`: DASHBOARD_ACCESS (inline) or DASHBOARD_ACCESS_FILE at package time, else
 *   infra/dashboard-access.yml: groups -> clusters x namespaces (shared/access/viewer-access.ts);
 * - `issuer`, `clientId`: DASHBOARD_OIDC_ISSUER / DASHBOARD_OIDC_CLIENT_ID, for the JWT authorizer (issuer +
 *   audience) and the browser. Unset, the authorizer points at an issuer that cannot exist, so every token is
 *   refused (and the page says sign-in is not configured): packaging stays offline and nothing is open.
 */
const path = require("node:path");
const { loadAccessMap } = require("./access-maps.cjs");

const NOT_CONFIGURED = "https://dashboard-sign-in-not-configured.invalid";

function loadDashboard(env = process.env) {
  const access = loadAccessMap(env, {
    inline: "DASHBOARD_ACCESS",
    file: "DASHBOARD_ACCESS_FILE",
    defaultFile: path.join(__dirname, "dashboard-access.yml"),
    keys: ["groups"],
    what: "dashboard access map",
  });
  const issuer = env.DASHBOARD_OIDC_ISSUER?.trim() || NOT_CONFIGURED;
  if (!issuer.startsWith("https://"))
    throw new Error(`DASHBOARD_OIDC_ISSUER ${issuer}: API Gateway needs an https issuer`);
  return {
    accessJson: JSON.stringify(access),
    issuer,
    clientId: env.DASHBOARD_OIDC_CLIENT_ID?.trim() || "not-configured",
    groupsClaim: env.DASHBOARD_GROUPS_CLAIM?.trim() || "groups",
  };
}

module.exports = async () => loadDashboard();
module.exports.loadDashboard = loadDashboard;
