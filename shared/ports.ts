/**
 * The small things every use case gets injected (Helm's action shape:
 * `{store, clusters, clock, logger}`), so use cases stay plain functions of
 * their inputs, testable without Lambda and reusable by the API, CLI, audits and chatops.
 */

/** Time, injectable so caches and ages are tested without sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** The subset of Powertools Logger that use cases use (structured: message + attributes). */
export interface Logger {
  debug(message: string, attributes?: Record<string, unknown>): void;
  info(message: string, attributes?: Record<string, unknown>): void;
  warn(message: string, attributes?: Record<string, unknown>): void;
  error(message: string, attributes?: Record<string, unknown>): void;
  /** Whether debug lines are written (hot paths build their attributes only then); absent: assume not. */
  debugEnabled?(): boolean;
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
