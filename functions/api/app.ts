import middy from "@middy/core";
import httpHeaderNormalizer from "@middy/http-header-normalizer";
import httpRouterHandler from "@middy/http-router";
import { telemetryMiddlewares } from "../_shared/telemetry.ts";
import { MethodNotAllowedError, RouteNotFoundError } from "./errors.ts";
import { compression } from "./middleware/compression.ts";
import { domainErrorsToHttp } from "./middleware/error-mapping.ts";
import { responseSizeLimit } from "./middleware/response-limit.ts";
import { requestTelemetry } from "./middleware/telemetry.ts";
import { type RouteDefinition, templateMatcher } from "./route.ts";
import { historyRoutes } from "./routes/history.ts";
import { importRoutes } from "./routes/import.ts";
import { metaRoutes } from "./routes/meta.ts";
import { releaseRoutes } from "./routes/releases.ts";
import { reliabilityRoutes } from "./routes/reliability.ts";
import { statusRoutes } from "./routes/status.ts";
import type { ApiContext, ApiDeps, ApiEvent, ApiResult } from "./types.ts";

/** Every route of the API, each with its own middy stack. The OpenAPI test reads this list. */
export function createRoutes(deps: ApiDeps): RouteDefinition[] {
  return [
    ...metaRoutes(deps),
    ...releaseRoutes(deps),
    ...statusRoutes(deps),
    ...importRoutes(deps),
    ...historyRoutes(deps),
    ...reliabilityRoutes(deps),
  ];
}

export type ApiHandler = (event: ApiEvent, context: ApiContext) => Promise<ApiResult>;

/**
 * The API as one Lambda handler: http-router dispatches to the per-route stacks;
 * the cross-cutting middlewares sit once around it. Their order matters: on the
 * way out (reverse order) errors are mapped first, the result is compressed,
 * its size checked against Lambda's limit (a 413 is mapped and compressed in
 * turn), then logged and counted (the request line), and last Powertools' own
 * middlewares flush the metrics and reset the request's log keys.
 */
export function createApiHandler(deps: ApiDeps): ApiHandler {
  const routes = createRoutes(deps);
  const matchers = routes.map((route) => ({ method: route.method, match: templateMatcher(route.path) }));

  const router = httpRouterHandler({
    routes: routes.map(({ method, path, handler }) => ({ method, path, handler })),
    notFoundResponse: ({ method, path }: { method: string; path: string }) => {
      const allow = [...new Set(matchers.filter((m) => m.match.test(path)).map((m) => m.method))];
      throw allow.length > 0 ? new MethodNotAllowedError(method, path, allow) : new RouteNotFoundError(method, path);
    },
  });

  const handler = middy<ApiEvent, ApiResult, Error, ApiContext>()
    .use(
      telemetryMiddlewares(deps.logger, deps.metrics) as middy.MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext>[],
    )
    .use(httpHeaderNormalizer() as middy.MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext>)
    .use(requestTelemetry(deps.logger, deps.metrics))
    .use(responseSizeLimit(deps.settings.maxResponseBytes))
    .use(compression())
    .use(domainErrorsToHttp(deps.logger))
    .handler(router as unknown as ApiHandler);
  return handler as unknown as ApiHandler;
}
