/**
 * The dashboard: its static files (no sign-in: the page itself holds no data), its settings for the
 * browser, and the two listings only the dashboard needs (a paged, filtered fleet; health over time).
 * Every data route is also served under /dashboard/api for signed-in people (functions/api/viewer.ts).
 * Thin: parse -> use case -> shape.
 */
import { FLEET_PAGE_MAX, fleetReleases } from "../../../shared/usecases/fleet.ts";
import { fleetTimeline, releaseTimeline } from "../../../shared/usecases/timeline.ts";
import { annotate, defineRoute, type RouteDefinition } from "../../_shared/http/route.ts";
import { LOCKED_DASHBOARD } from "../dashboard-config.ts";
import { onlyKnownQuery, optionalCursor, optionalFlag, optionalLimit } from "../params.ts";
import { json } from "../respond.ts";
import { StaticFiles } from "../static-files.ts";
import type { ApiContext, ApiDeps } from "../types.ts";
import { DASHBOARD_API_PREFIX } from "../viewer.ts";
import { historyDeps } from "./history.ts";
import { releaseRoute } from "./releases.ts";

export function dashboardRoutes(deps: ApiDeps): RouteDefinition[] {
  const settings = deps.dashboard ?? LOCKED_DASHBOARD;
  const files = new StaticFiles(settings.assetsDir, settings.connectOrigins);
  // The history routes' dependencies (the viewer's scope, 502 without SNAPSHOTS_TABLE) plus the fleet's cache.
  const history = (context: ApiContext) => ({
    ...historyDeps(deps, context),
    store: deps.store,
    cache: deps.fleetCache,
  });
  // What the browser needs to sign in (nothing secret: a public client uses PKCE, no client secret).
  const browserConfig = {
    apiBase: DASHBOARD_API_PREFIX,
    auth: settings.auth === "off" ? { mode: "off" } : { mode: "oidc", ...settings.oidc },
  };

  return [
    // The page's relative links need the trailing slash (the router serves "/dashboard/" here too).
    defineRoute("GET", "/dashboard", async (event) =>
      (event.requestContext?.http?.path ?? event.rawPath).endsWith("/")
        ? files.serve("")
        : { statusCode: 308, headers: { location: "/dashboard/", "cache-control": "no-cache" }, body: "" },
    ),
    defineRoute("GET", "/dashboard/config.json", async () => json(browserConfig, 200, { "cache-control": "no-cache" })),
    defineRoute("GET", "/dashboard/{proxy+}", async (event) => files.serve(event.pathParameters?.proxy ?? "")),

    defineRoute("GET", "/fleet/releases", async (event, context) => {
      const query = event.queryStringParameters;
      onlyKnownQuery(query, ["cluster", "namespace", "health", "q", "limit", "cursor", "counts"]);
      annotate(context, { cluster: query?.cluster, sizeHint: "ask for a smaller page with ?limit=" });
      const page = await fleetReleases(history(context), {
        cluster: query?.cluster,
        namespace: query?.namespace,
        health: query?.health,
        q: query?.q,
        limit: optionalLimit(query, "limit", FLEET_PAGE_MAX),
        cursor: optionalCursor(query),
        counts: optionalFlag(query, "counts", true),
      });
      return json(page);
    }),

    defineRoute("GET", "/fleet/timeline", async (event, context) => {
      const query = event.queryStringParameters;
      onlyKnownQuery(query, ["since", "until", "cluster", "namespace"]);
      const timeline = await fleetTimeline(history(context), {
        since: query?.since,
        until: query?.until,
        cluster: query?.cluster,
        namespace: query?.namespace,
      });
      return json(timeline);
    }),

    releaseRoute("/timeline", { query: ["since", "until"] }, async ({ key, query, context }) => {
      const timeline = await releaseTimeline(history(context), key, { since: query?.since, until: query?.until });
      return json(timeline);
    }),
  ];
}
