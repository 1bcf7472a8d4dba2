import middy from "@middy/core";
import type { Context } from "aws-lambda";
import type { Logger } from "../../shared/ports.ts";
import { withRequestBudget } from "../../shared/request-budget.ts";
import { budgetSignal } from "./runtime.ts";
import { loggerPort, type Telemetry, telemetryMiddlewares } from "./telemetry.ts";

/**
 * The shell every Lambda of the product goes through (docs/architecture.md "The Lambda shell"): its entry point
 * (`lambdaEntry`), Powertools' telemetry around each invocation (`withTelemetry`, or `httpHandler` for HTTP
 * functions, which adds the router and the error mapping). A handler file is its entry point plus what it does
 * per event; serverless.yml names its `handler` export, and test/deploy/shell.test.ts checks each one is this.
 */

export type { Telemetry };

export type LambdaHandler<E, R, C extends Context = Context> = (event: E, context: C) => Promise<R>;

const SHELL = Symbol.for("helm-status-lambda.shell");
/** The telemetry a built handler logs with: what `lambdaEntry` reports a stray rejection to. */
const TELEMETRY = Symbol.for("helm-status-lambda.shell.telemetry");

/**
 * A per-event function wrapped by the shell (telemetry outermost); only this module and http/handler.ts make
 * one. Local tools and tests may call it without a context: middy passes `{}` on, and `deadlineFrom` then gives
 * the default budget.
 */
export type ShellHandler<E, R, C extends Context = Context> = ((event: E, context?: C) => Promise<R>) & {
  readonly [SHELL]: "handler";
  readonly [TELEMETRY]?: Telemetry;
};

/** Marks a handler the shell built (http/handler.ts wraps its own middy stack, then marks it). */
export function shellHandler<E, R, C extends Context>(
  handler: LambdaHandler<E, R, C>,
  telemetry?: Telemetry,
): ShellHandler<E, R, C> {
  return Object.assign(handler as (event: E, context?: C) => Promise<R>, {
    [SHELL]: "handler" as const,
    [TELEMETRY]: telemetry,
  });
}

/**
 * Powertools' middlewares around a per-event function: the Lambda context on every log line (the request's
 * keys reset after it), a ColdStart metric, the stored metrics flushed after every invocation, returned or thrown.
 */
export function withTelemetry<E, R>(telemetry: Telemetry, perEvent: LambdaHandler<E, R>): ShellHandler<E, R> {
  const handler = middy<E, R, Error, Context>()
    .use(telemetryMiddlewares(telemetry.logger, telemetry.metrics) as middy.MiddlewareObj<E, R, Error, Context>[])
    .handler(perEvent);
  const stack = handler as unknown as LambdaHandler<E, R>;
  // Every store call of the event ends by its deadline (shared/request-budget.ts).
  const budgeted: LambdaHandler<E, R> = (event, context) =>
    withRequestBudget(budgetSignal(context), () => stack(event, context));
  return shellHandler(budgeted, telemetry);
}

/**
 * The entry point of every function: `export const handler = lambdaEntry(() => createXHandler(xFromEnv(env)))`.
 *
 * Lazy, not `export const handler = createXHandler(...)` at import: the module the Lambda loads is then the
 * module the tests, the bench and `npm start` import for its `createXHandler`, with no configuration read and
 * no client built as a side effect of an import; the configuration is still read once per cold start (on the
 * first invocation, then kept for the warm process), and a bad one fails that invocation with every problem
 * named, in the function's own log with its request id.
 */
export function lambdaEntry<E, R, C extends Context = Context>(
  build: () => ShellHandler<E, R, C>,
): LambdaHandler<E, R, C> & { readonly [SHELL]: "entry" } {
  let built: ShellHandler<E, R, C> | undefined;
  const entry = async (event: E, context: C): Promise<R> => {
    if (!built) {
      built = build();
      if (built[SHELL] !== "handler") throw new Error("a Lambda entry point must build its handler with the shell");
      // Only under Lambda's runtime (its API's address is set): tests and `npm start` keep their own listeners.
      const logger = built[TELEMETRY]?.logger;
      if (process.env.AWS_LAMBDA_RUNTIME_API && logger) containStrayRejections(process, loggerPort(logger));
    }
    return built(event, context);
  };
  return Object.assign(entry, { [SHELL]: "entry" as const });
}

/** An entry point made by `lambdaEntry` (test/deploy/shell.test.ts checks every serverless.yml handler). */
export function isShellEntry(value: unknown): boolean {
  return typeof value === "function" && (value as { [SHELL]?: string })[SHELL] === "entry";
}

const contained = new WeakSet<object>();

/**
 * A promise that rejects with nothing awaiting it (work a request started, then abandoned: issue #38 item 2's
 * `?at&against`) is logged as an ERROR line (with its stack), never the end of the execution
 * environment. Lambda's Node runtime listens for `unhandledRejection` itself, posts an invocation error and exits
 * (code 128): the request in flight then fails with API Gateway's bare 502, and the next ones pay a cold start,
 * at the will of anyone who can send the request. Its listeners are replaced by this one, once per process; an
 * uncaught exception keeps the runtime's behaviour (a synchronous throw from a callback may leave state broken).
 */
export function containStrayRejections(
  target: Pick<NodeJS.Process, "on" | "removeAllListeners">,
  logger: Pick<Logger, "error">,
): void {
  if (contained.has(target)) return;
  contained.add(target);
  target.removeAllListeners("unhandledRejection");
  target.on("unhandledRejection", (reason: unknown) => {
    const error =
      reason instanceof Error ? { name: reason.name, message: reason.message, stack: reason.stack } : String(reason);
    logger.error("unhandled rejection contained: a bug (some work was started and not awaited)", { error });
  });
}
