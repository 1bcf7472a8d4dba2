import type { MiddlewareObj } from "@middy/core";
import { resolveViewer } from "../../shared/access/viewer-access.ts";
import { type ClusterScope, viewerScope } from "../../shared/clusters/scope.ts";
import { MethodNotAllowedError, UnauthorizedError } from "../_shared/http/errors.ts";
import type { DashboardConfig } from "./dashboard-config.ts";
import type { ApiContext, ApiDeps, ApiEvent, ApiResult } from "./types.ts";

/** Where the dashboard's API routes live: the same routes as the IAM ones, behind API Gateway's JWT authorizer. */
export const DASHBOARD_API_PREFIX = "/dashboard/api";

interface JwtAuthorizer {
  jwt?: { claims?: Record<string, unknown> };
}

/**
 * The dashboard's mount of the API. A request under /dashboard/api is one API Gateway let through its JWT
 * authorizer (signature, issuer, audience, expiry checked there): its claims decide what the person may see
 * (DASHBOARD_ACCESS by the groups claim), its prefix is taken off and the same route serves it. Read only
 * (GET): an import is never a browser's. Every other path is an IAM caller's, as before: the whole registry.
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
      if (settings.auth === "off") {
        context.viewer = { subject: "anonymous" };
        return;
      }
      const claims = (event.requestContext as { authorizer?: JwtAuthorizer }).authorizer?.jwt?.claims;
      if (!claims)
        throw new UnauthorizedError(
          "sign in first: this route needs a bearer token from the dashboard's identity provider",
        );
      context.viewer = {
        subject: String(claims.sub ?? ""),
        grants: resolveViewer(settings.access, claims, settings.groupsClaim),
      };
    },
  };
}

/** The clusters this request may touch: the registry, narrowed to the signed-in person's grants. */
export function scopeFor(deps: Pick<ApiDeps, "clusters">, context: ApiContext): ClusterScope {
  const grants = context.viewer?.grants;
  return grants ? viewerScope(deps.clusters, grants) : deps.clusters;
}
