import middy from "@middy/core";
import httpHeaderNormalizer from "@middy/http-header-normalizer";
import httpRouterHandler from "@middy/http-router";
import { withRequestBudget } from "../../../shared/request-budget.ts";
import { budgetSignal } from "../runtime.ts";
import { type ShellHandler, shellHandler, type Telemetry } from "../shell.ts";
import { telemetryMiddlewares } from "../telemetry.ts";
import { domainErrorsToHttp, toHttpError } from "./error-mapping.ts";
import { MethodNotAllowedError, RouteNotFoundError } from "./errors.ts";
import { requestTelemetry } from "./request-telemetry.ts";
import { responseSizeLimit } from "./response-limit.ts";
import { templateMatcher } from "./route.ts";
import { securityHeaders, withSecurityHeaders } from "./security-headers.ts";
import type { HttpContext, HttpEvent, HttpResult, RouteDefinition } from "./types.ts";

/** Lambda's synchronous invocation payload limit (6 MB), measured on the serialized result. */
export const LAMBDA_RESPONSE_LIMIT_BYTES = 6 * 1024 * 1024;

export type HttpMiddleware = middy.MiddlewareObj<HttpEvent, HttpResult, Error, HttpContext>;

export interface HttpFunctionOptions {
  routes: RouteDefinition[];
  /** Appended to a 404's message: where the routes are listed (the API: its OpenAPI document). */
  notFoundHint?: string;
  /** Largest serialized response (default Lambda's 6 MB): a bigger one is a 413 saying how to ask for less. */
  maxResponseBytes?: number;
  /** The function's own middlewares, inside the size check and outside the error mapping (the API's compression). */
  middlewares?: HttpMiddleware[];
  /** Time kept back from the Lambda's remaining time for answering: every store call ends by then (default 1 s). */
  deadlineMarginMs?: number;
}

/**
 * One HTTP function (the API, each chat webhook): http-router dispatches to the per-route stacks; the
 * cross-cutting middlewares sit once around it. Their order matters: on the way out (reverse order) errors are
 * mapped first, the function's own middlewares run (the API compresses), the size is checked against Lambda's
 * limit (a 413 is mapped in turn), then the request is logged and counted, and last Powertools' own middlewares
 * flush the metrics and reset the request's log keys. Bodies are never parsed here: a webhook verifies its
 * signature over the raw bytes (body.ts).
 */
export function httpHandler(
  telemetry: Telemetry,
  options: HttpFunctionOptions,
): ShellHandler<HttpEvent, HttpResult, HttpContext> {
  const { routes } = options;
  const matchers = routes.map((route) => ({ method: route.method, match: templateMatcher(route.path) }));
  const router = httpRouterHandler({
    routes: routes.map(({ method, path, handler }) => ({ method, path, handler })),
    notFoundResponse: ({ method, path }: { method: string; path: string }) => {
      const allow = [...new Set(matchers.filter((m) => m.match.test(path)).map((m) => m.method))];
      throw allow.length > 0
        ? new MethodNotAllowedError(method, path, allow)
        : new RouteNotFoundError(method, path, options.notFoundHint);
    },
  });
  const handler = middy<HttpEvent, HttpResult, Error, HttpContext>()
    .use(telemetryMiddlewares(telemetry.logger, telemetry.metrics) as HttpMiddleware[])
    .use(securityHeaders())
    .use(httpHeaderNormalizer() as HttpMiddleware)
    .use(requestTelemetry(telemetry.logger, telemetry.metrics))
    .use(responseSizeLimit(options.maxResponseBytes ?? LAMBDA_RESPONSE_LIMIT_BYTES))
    .use(options.middlewares ?? [])
    .use(domainErrorsToHttp(telemetry.logger))
    .handler(router as unknown as (event: HttpEvent, context: HttpContext) => Promise<HttpResult>);
  const stack = handler as unknown as (event: HttpEvent, context: HttpContext) => Promise<HttpResult>;
  const budgeted = (event: HttpEvent, context: HttpContext) =>
    withRequestBudget(budgetSignal(context, options.deadlineMarginMs), () => stack(event, context));
  return shellHandler(lastResort(telemetry, budgeted), telemetry);
}

/**
 * Whatever still escapes the stack (a middleware's own failure while mapping an error, a value thrown that is no
 * Error) is logged and answered as the error mapping answers a bug: a 500 with the request id, never a rejected
 * invocation (API Gateway's bare 502 with nothing in the function's log to find it by).
 */
function lastResort(
  telemetry: Telemetry,
  stack: (event: HttpEvent, context: HttpContext) => Promise<HttpResult>,
): (event: HttpEvent, context: HttpContext) => Promise<HttpResult> {
  return async (event, context) => {
    try {
      return await stack(event, context);
    } catch (error) {
      try {
        telemetry.logger.error("request failed outside the error mapping", {
          error:
            error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : typeof error,
        });
      } catch {
        // The log itself failed: the answer still goes out.
      }
      const requestId = event?.requestContext?.requestId ?? context?.awsRequestId;
      return withSecurityHeaders(toHttpError(undefined, requestId));
    }
  };
}
