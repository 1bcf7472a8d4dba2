/**
 * The small things every use case gets injected (Helm's action shape:
 * `{store, clusters, clock, logger}`), so use cases stay plain functions of
 * their inputs, testable without Lambda and reusable by the API, CLI, audits and chatops.
 */

/**
 * Time: the one shape every part of shared/ gets it in (injected, so caches, ages, deadlines and TTLs are
 * tested without sleeping). Nothing else in shared/ reads the wall clock (test/clock.test.ts).
 */
export interface Clock {
  now(): Date;
}

/** The one implementation that reads the wall clock. */
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
