import middy from "@middy/core";
import type { ApiContext, ApiEvent, ApiResult } from "./types.ts";

export type Method = "GET" | "POST";

export type RouteFunction = (event: ApiEvent, context: ApiContext) => Promise<ApiResult>;

export interface RouteDefinition {
  method: Method;
  /** API Gateway / http-router template, e.g. `/clusters/{cluster}/releases`. */
  path: string;
  handler: RouteFunction;
}

/**
 * Builds a route's own middy stack. Its one middleware names the route for logs
 * and metrics; everything cross-cutting (errors, compression, size, telemetry)
 * sits once on the outer stack in app.ts.
 */
export function defineRoute(method: Method, path: string, fn: RouteFunction): RouteDefinition {
  const routeKey = `${method} ${path}`;
  const handler = middy<ApiEvent, ApiResult, Error, ApiContext>()
    .use({
      before: (request) => {
        request.context.annotations ??= {};
        request.context.annotations.route = routeKey;
      },
    })
    .handler(fn);
  return { method, path, handler: handler as unknown as RouteFunction };
}

/** Turns a template into a matcher, for 405 detection (which methods serve this path?). */
export function templateMatcher(template: string): RegExp {
  const pattern = template
    .split("/")
    .map((segment) => (/^\{[^}]+\}$/.test(segment) ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${pattern}/?$`);
}
