import { Logger } from "@aws-lambda-powertools/logger";
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import { Metrics } from "@aws-lambda-powertools/metrics";
import { logMetrics } from "@aws-lambda-powertools/metrics/middleware";
import type { MiddlewareObj } from "@middy/core";
import type { Logger as LoggerPort } from "../../shared/ports.ts";
import type { TelemetryConfig } from "./config.ts";

/** What the telemetry middlewares need: Powertools' own Logger and Metrics (the runtime's). */
export interface Telemetry {
  logger: Logger;
  metrics: Metrics;
}

/**
 * A function's `logger` (the use cases' port) and `telemetry` from one Powertools Logger and Metrics: for deps
 * built by hand (tests, the bench, local tools) with the names every function's deps use.
 */
export function telemetryDeps(logger: Logger, metrics: Metrics): { logger: LoggerPort; telemetry: Telemetry } {
  return { logger: loggerPort(logger), telemetry: { logger, metrics } };
}

export function createLogger(config: TelemetryConfig): Logger {
  return new Logger({ serviceName: config.serviceName, logLevel: config.logLevel });
}

export function createMetrics(config: TelemetryConfig): Metrics {
  return new QuietMetrics({ namespace: config.metricsNamespace, serviceName: config.serviceName });
}

/**
 * Powertools' Metrics without its warning on an empty flush: the middleware flushes after every invocation, and
 * most audit or chat batches count nothing (the warning would be most of those functions' log lines).
 */
class QuietMetrics extends Metrics {
  override publishStoredMetrics(): this {
    if (this.hasStoredMetrics()) return super.publishStoredMetrics();
    this.clearDimensions();
    this.clearMetadata();
    return this;
  }
}

/**
 * Powertools' own middy middlewares, outermost on every function: the Lambda context (request id, cold start,
 * function name) on every log line with the keys a request appended reset after it, and the stored EMF metrics
 * flushed after every invocation (plus a ColdStart metric), whatever the handler returned or threw.
 */
export function telemetryMiddlewares(logger: Logger, metrics: Metrics): MiddlewareObj[] {
  return [
    injectLambdaContext(logger, { resetKeys: true }) as MiddlewareObj,
    logMetrics(metrics, { captureColdStartMetric: true }) as MiddlewareObj,
  ];
}

/** Powertools' Logger behind the use cases' `(message, attributes)` port. */
export function loggerPort(logger: Logger): LoggerPort {
  return {
    debug: (message, attributes) => logger.debug(message, attributes ?? {}),
    info: (message, attributes) => logger.info(message, attributes ?? {}),
    warn: (message, attributes) => logger.warn(message, attributes ?? {}),
    error: (message, attributes) => logger.error(message, attributes ?? {}),
    // POWERTOOLS_LOG_LEVEL=DEBUG (off by default): the kube request path then logs each request and retry.
    debugEnabled: () => logger.getLevelName() === "DEBUG",
  };
}
