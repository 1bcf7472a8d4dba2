/** Powertools Logger behind the use cases' Logger port, for the chatops functions (JSON lines, no secrets passed in). */
import { Logger } from "@aws-lambda-powertools/logger";
import type { Logger as LoggerPort } from "../../shared/ports.ts";

export const CHATOPS_SERVICE = "helm-status-chatops";

export function chatopsLogger(env: Record<string, string | undefined>): LoggerPort {
  const level = (env.POWERTOOLS_LOG_LEVEL ?? "INFO").toUpperCase();
  const logger = new Logger({
    serviceName: env.POWERTOOLS_SERVICE_NAME ?? CHATOPS_SERVICE,
    logLevel: (["DEBUG", "INFO", "WARN", "ERROR", "SILENT"].includes(level) ? level : "INFO") as "INFO",
  });
  return {
    debug: (message, attributes) => logger.debug(message, attributes ?? {}),
    info: (message, attributes) => logger.info(message, attributes ?? {}),
    warn: (message, attributes) => logger.warn(message, attributes ?? {}),
    error: (message, attributes) => logger.error(message, attributes ?? {}),
  };
}
