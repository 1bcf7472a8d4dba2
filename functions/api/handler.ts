import { createApiHandler } from "./app.ts";
import { apiDepsFromEnv } from "./deps.ts";

/**
 * The Lambda entry point (serverless.yml: functions/api/handler.handler).
 * Configuration is read and validated here, at cold start: a bad registry or
 * setting fails the init with a message that names it.
 */
export const handler = createApiHandler(apiDepsFromEnv(process.env));
