import middy from "@middy/core";
import type { HttpContext, HttpEvent, HttpResult, Method, RouteDefinition, RouteFunction } from "./types.ts";

export type { Method, RouteDefinition, RouteFunction } from "./types.ts";

/**
 * Builds a route's own middy stack. Its one middleware names the route for logs
 * and metrics; everything cross-cutting (errors, size, telemetry) sits once on
 * the function's outer stack (handler.ts).
 */
export function defineRoute(method: Method, path: string, fn: RouteFunction): RouteDefinition {
  const routeKey = `${method} ${path}`;
  const handler = middy<HttpEvent, HttpResult, Error, HttpContext>()
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

/** Adds what a route learnt about the request to its log line and metrics. */
export function annotate(context: HttpContext, values: NonNullable<HttpContext["annotations"]>): void {
  context.annotations = { ...context.annotations, ...values };
}

/**
 * One method and path served by two routes, picked by the query (http-router matches method and path only):
 * `when` the query asks for `then`, else `otherwise`. Each keeps its own handler, query rules and log name.
 */
export function routeByQuery(
  when: (query: HttpEvent["queryStringParameters"]) => boolean,
  then: RouteDefinition,
  otherwise: RouteDefinition,
): RouteDefinition {
  if (then.method !== otherwise.method || then.path !== otherwise.path) {
    throw new Error(`routeByQuery: ${then.method} ${then.path} and ${otherwise.method} ${otherwise.path} differ`);
  }
  return {
    ...otherwise,
    handler: (event, context) => (when(event.queryStringParameters) ? then : otherwise).handler(event, context),
  };
}
