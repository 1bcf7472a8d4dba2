import { httpHandler } from "../_shared/http/handler.ts";
import type { RouteDefinition } from "../_shared/http/types.ts";
import { lambdaEntry, type ShellHandler } from "../_shared/shell.ts";
import { LOCKED_DASHBOARD } from "./dashboard-config.ts";
import { apiDepsFromEnv } from "./deps.ts";
import { mcpRoutes } from "./mcp/route.ts";
import { compression } from "./middleware/compression.ts";
import { dashboardRoutes } from "./routes/dashboard.ts";
import { historyRoutes } from "./routes/history.ts";
import { importRoutes } from "./routes/import.ts";
import { metaRoutes } from "./routes/meta.ts";
import { releaseRoutes } from "./routes/releases.ts";
import { reliabilityRoutes } from "./routes/reliability.ts";
import { statusRoutes } from "./routes/status.ts";
import { syncRoutes } from "./routes/sync.ts";
import type { ApiContext, ApiDeps, ApiEvent, ApiResult } from "./types.ts";
import { dashboardMount } from "./viewer.ts";

/** Every route of the API, each with its own middy stack. The OpenAPI test reads this list. */
export function createRoutes(deps: ApiDeps): RouteDefinition[] {
  return [
    ...metaRoutes(deps),
    ...releaseRoutes(deps),
    ...statusRoutes(deps),
    ...importRoutes(deps),
    ...historyRoutes(deps),
    ...reliabilityRoutes(deps),
    ...syncRoutes(deps),
    ...dashboardRoutes(deps),
    ...mcpRoutes(deps),
  ];
}

export type ApiHandler = ShellHandler<ApiEvent, ApiResult, ApiContext>;

/** The API on the shell's HTTP stack (router, error mapping, size limit, telemetry), compressing its answers. */
export function createApiHandler(deps: ApiDeps): ApiHandler {
  return httpHandler(deps.telemetry, {
    routes: createRoutes(deps),
    notFoundHint: "see GET /openapi.json for the routes",
    maxResponseBytes: deps.settings.maxResponseBytes,
    deadlineMarginMs: deps.settings.deadlineMarginMs,
    // The dashboard's /dashboard/api mount: inside the error mapping, so a 401/403/405 is mapped like any other.
    middlewares: [compression(), dashboardMount(deps.dashboard ?? LOCKED_DASHBOARD)],
  });
}

/** The Lambda entry point (serverless.yml: functions/api/handler.handler). */
export const handler = lambdaEntry(() => createApiHandler(apiDepsFromEnv(process.env)));
