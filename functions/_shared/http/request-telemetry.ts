import { performance } from "node:perf_hooks";
import type { Logger } from "@aws-lambda-powertools/logger";
import type { Metrics } from "@aws-lambda-powertools/metrics";
import type { MiddlewareObj } from "@middy/core";
import type { HttpContext, HttpEvent, HttpResult } from "./types.ts";

type Outcome = "success" | "client-error" | "server-error";

function outcomeOf(statusCode: number | undefined): Outcome {
  if (statusCode === undefined || statusCode >= 500) return "server-error";
  return statusCode >= 400 ? "client-error" : "success";
}

/**
 * The request line and metrics of every HTTP function (Powertools' middlewares, outside this one, add the Lambda
 * context to every line, reset the request's keys and flush the metrics). Only what routes put in
 * `context.annotations` is logged about the request (never headers, bodies or query strings: an
 * Authorization header or an imported Secret must never reach CloudWatch).
 */
export function requestTelemetry(
  logger: Logger,
  metrics: Metrics,
): MiddlewareObj<HttpEvent, HttpResult, Error, HttpContext> {
  const started = new WeakMap<object, number>();

  const finish = (request: { event: HttpEvent; context: HttpContext; response: HttpResult | null | undefined }) => {
    const start = started.get(request.context) ?? performance.now();
    const durationMs = Math.round((performance.now() - start) * 100) / 100;
    const statusCode = request.response?.statusCode;
    const outcome = outcomeOf(statusCode);
    const annotations = request.context.annotations ?? {};
    const route = annotations.route ?? "unmatched";
    logger.info("request", {
      route,
      statusCode,
      outcome,
      durationMs,
      cluster: annotations.cluster,
      release: annotations.release,
      revision: annotations.revision,
      resourceCount: annotations.resourceCount,
      partial: annotations.partial,
    });
    metrics.addDimension("route", route);
    metrics.addDimension("outcome", outcome);
    metrics.addMetric("RequestLatency", "Milliseconds", durationMs);
    metrics.addMetric("Requests", "Count", 1);
    if (annotations.resourceCount !== undefined)
      metrics.addMetric("StatusResources", "Count", annotations.resourceCount);
  };

  return {
    before: (request) => {
      started.set(request.context, performance.now());
      request.context.annotations = {};
      const http = request.event.requestContext?.http;
      logger.appendKeys({ requestId: request.event.requestContext?.requestId, method: http?.method, path: http?.path });
    },
    after: (request) => finish(request),
    onError: (request) => finish(request),
  };
}
