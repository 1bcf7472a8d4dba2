import type { MiddlewareObj } from "@middy/core";
import { verifiedTokenPayload } from "../../shared/access/verified-token.ts";
import { groupsOf, resolveViewer } from "../../shared/access/viewer-access.ts";
import { type ClusterScope, viewerScope } from "../../shared/clusters/scope.ts";
import type { Audience } from "../../shared/who/attribution.ts";
import { MethodNotAllowedError, RouteNotFoundError, UnauthorizedError } from "../_shared/http/errors.ts";
import { templateMatcher } from "../_shared/http/route.ts";
import type { DashboardConfig } from "./dashboard-config.ts";
import type { ApiContext, ApiDeps, ApiEvent, ApiResult } from "./types.ts";

/** Where the dashboard's API routes live: the same routes as the IAM ones, behind API Gateway's JWT authorizer. */
export const DASHBOARD_API_PREFIX = "/dashboard/api";

/**
 * The routes mounted under the prefix: what the dashboard reads, exactly serverless.yml's JWT-authorized events
 * (test/api/openapi.test.ts holds the two equal). Any other path under the prefix is a 404 here too, so `npm start`
 * serves what AWS serves: the sync's state (every namespace's names) or the cluster-wide list are IAM routes only.
 */
export const DASHBOARD_API_ROUTES = [
  "/clusters",
  "/clusters/{cluster}/namespaces/{namespace}/releases/{name}/status",
  "/clusters/{cluster}/namespaces/{namespace}/releases/{name}/history",
  "/clusters/{cluster}/namespaces/{namespace}/releases/{name}/revisions/{revision}/manifest",
  "/clusters/{cluster}/namespaces/{namespace}/releases/{name}/snapshots",
  "/clusters/{cluster}/namespaces/{namespace}/releases/{name}/snapshots/{id}",
  "/clusters/{cluster}/namespaces/{namespace}/releases/{name}/snapshots/{id}/diff",
  "/clusters/{cluster}/namespaces/{namespace}/releases/{name}/timeline",
  "/clusters/{cluster}/namespaces/{namespace}/releases/{name}/reliability",
  "/fleet/releases",
  "/fleet/timeline",
  "/fleet/health",
  "/fleet/reliability",
  "/audits",
  "/audits/{runId}",
  "/mcp",
] as const;

const MOUNTED = DASHBOARD_API_ROUTES.map(templateMatcher);

interface JwtAuthorizer {
  jwt?: { claims?: Record<string, unknown> };
}

/**
 * The dashboard's mount of the API. A request under /dashboard/api is one API Gateway let through its JWT
 * authorizer (signature, issuer, audience, expiry checked there): the groups claim of that token decides what the
 * person may see (DASHBOARD_ACCESS), read from the token in the Authorization header as a list (the authorizer's
 * own claims flatten a list to one string: shared/access/verified-token.ts); its prefix is taken off and the same
 * route serves it. Read only
 * (GET, and POST for the read-only MCP tools): an import is never a browser's. Every other path is an IAM caller's, as before: the whole registry.
 */
export function dashboardMount(settings: DashboardConfig): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> {
  return {
    before: (request) => {
      const { event, context } = request;
      const path = event.requestContext?.http?.path ?? event.rawPath;
      if (path !== DASHBOARD_API_PREFIX && !path?.startsWith(`${DASHBOARD_API_PREFIX}/`)) return;
      const inner = path.slice(DASHBOARD_API_PREFIX.length) || "/";
      event.rawPath = inner;
      if (event.requestContext?.http) event.requestContext.http.path = inner;
      const method = event.requestContext?.http?.method ?? "GET";
      // The one POST: MCP's tool calls (functions/api/mcp/), every tool a read.
      if (method !== "GET" && !(method === "POST" && inner === "/mcp")) {
        throw new MethodNotAllowedError(method, path, ["GET"]);
      }
      if (!MOUNTED.some((route) => route.test(inner))) {
        throw new RouteNotFoundError(method, path, "the dashboard's API mounts only the routes the dashboard reads");
      }
      if (settings.auth === "off") {
        context.viewer = { subject: "anonymous" };
        return;
      }
      const claims = (event.requestContext as { authorizer?: JwtAuthorizer }).authorizer?.jwt?.claims;
      if (!claims)
        throw new UnauthorizedError(
          "sign in first: this route needs a bearer token from the dashboard's identity provider",
        );
      const headers = event.headers ?? {};
      const token = verifiedTokenPayload(headers.authorization ?? headers.Authorization, claims);
      if (!token) throw new UnauthorizedError("sign in again: the bearer token is not the one the authorizer verified");
      context.viewer = {
        subject: String(claims.sub ?? ""),
        grants: resolveViewer(settings.access, groupsOf(token[settings.groupsClaim])),
      };
    },
  };
}

/**
 * Who reads this request's answer in `format` (shared/who/attribution.ts `forAudience`): only an IAM-signed
 * caller's structured document (JSON, YAML) is "iam" (an identity's ARN and account id); a signed-in person's
 * browser, and any text table (it is pasted and shared), are "public".
 */
export function audienceFor(context: ApiContext, format: "table" | "json" | "yaml"): Audience {
  return context.viewer || format === "table" ? "public" : "iam";
}

/** The clusters this request may touch: the registry, narrowed to the signed-in person's grants. */
export function scopeFor(deps: Pick<ApiDeps, "clusters">, context: ApiContext): ClusterScope {
  const grants = context.viewer?.grants;
  return grants ? viewerScope(deps.clusters, grants) : deps.clusters;
}
