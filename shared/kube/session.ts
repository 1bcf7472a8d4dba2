import type { ClusterConnector } from "../clusters/connector.ts";
import { ClusterAccessDeniedError, ClusterCertificateError } from "../clusters/errors.ts";
import type { DomainError } from "../errors.ts";
import { type Clock, type Logger, systemClock } from "../ports.ts";
import { backoffDelay, retryAfterMs, sleep } from "../retry.ts";
import type { ConnectionPools } from "./http.ts";
import { type ClusterLimit, FairLimiter } from "./limiter.ts";
import type { KubeRequester, KubeResponse } from "./requesters.ts";

/**
 * One status read against one cluster: every GET of it (discovery, resources,
 * related pods) goes through `request`, which owns the rules that make the
 * fan-out safe to run wide:
 * - at most `concurrency` requests of this status in flight, and under the
 *   cluster's limit shared by every status of the process (limiter.ts: fair
 *   between statuses, halved on 429 / 503+Retry-After, recovered gradually);
 *   a slot is held only while a request is on the wire, never while a retry
 *   waits, and a queued request leaves its queue at the deadline;
 * - a per-request timeout, and an absolute deadline after which nothing new
 *   starts and in-flight requests are aborted ("not read in time" beats a
 *   Lambda timeout that would lose every result);
 * - retries on 429/5xx/network errors with jittered exponential backoff,
 *   honouring Retry-After, never sleeping past the deadline, bounded attempts;
 * - a 401 invalidates the connector's credentials once for the whole session
 *   (concurrent 401s share one refresh) and the request is retried once; a 401
 *   with fresh credentials, or a certificate that does not verify against the
 *   cluster's CA, ends the whole session (`fatal`): every other read would
 *   fail the same way.
 */

export interface SessionOptions {
  cluster: string;
  connector: ClusterConnector;
  /** The reader's connection pools. */
  pools: ConnectionPools;
  /** The cluster's in-flight limit, shared by every session on it. */
  clusterLimit: ClusterLimit;
  /** Absolute time (epoch ms) after which no request runs. */
  deadline?: number;
  concurrency?: number;
  requestTimeoutMs?: number;
  maxAttempts?: number;
  /** For the deadline and Retry-After dates (default: the system clock). */
  clock?: Clock;
  random?: () => number;
  /** Given only when debug lines are wanted: one per request (status, ms, limiter wait), per retry, per give-up. */
  debug?: Logger;
}

export type RequestResult =
  | { kind: "response"; response: KubeResponse; attempts: number }
  | { kind: "deadline"; message: string }
  | { kind: "failed"; message: string; attempts: number; cause?: unknown };

export interface SessionCounters {
  requests: number;
  retries: number;
  maxInFlight: number;
  reauthentications: number;
}

const BACKOFF_BASE_MS = 100;
const BACKOFF_CAP_MS = 2_000;
/** Without a deadline, a Retry-After longer than this is not waited for. */
const MAX_RETRY_AFTER_MS = 10_000;
const RETRYABLE = new Set([429, 500, 502, 503, 504]);
/** What a closed session's signal carries: made once, where a default AbortError would build a stack per status. */
const SESSION_CLOSED = new Error("the status's reads are over");

export class KubeSession {
  readonly cluster: string;
  readonly counters: SessionCounters = { requests: 0, retries: 0, maxInFlight: 0, reauthentications: 0 };
  /** Set when the whole cluster failed (credentials refused after a refresh, certificate mismatch). */
  fatal?: DomainError;
  /** HTTP answers received (any status): none at all with failures means the cluster is unreachable. */
  answers = 0;
  /** The first request that got no answer at all (network error, timeout), for "cluster unreachable". */
  firstFailure?: string;
  private readonly connector: ClusterConnector;
  private readonly pools: ConnectionPools;
  private readonly clusterLimit: ClusterLimit;
  private readonly ownLimit: FairLimiter;
  private readonly deadline?: number;
  private readonly requestTimeoutMs: number;
  private readonly maxAttempts: number;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly debug?: Logger;
  private readonly deadlineController = new AbortController();
  private readonly deadlineTimer?: NodeJS.Timeout;
  /** The controllers of the requests in flight: the deadline (or close, or a fatal error) aborts them all. */
  private readonly inFlight = new Set<AbortController>();
  private requester?: Promise<KubeRequester>;
  /** The connector was told once that this cluster's address did not answer. */
  private endpointDoubted = false;

  constructor(options: SessionOptions) {
    this.cluster = options.cluster;
    this.connector = options.connector;
    this.pools = options.pools;
    this.clusterLimit = options.clusterLimit;
    this.deadline = options.deadline;
    this.ownLimit = new FairLimiter(options.concurrency ?? Number.MAX_SAFE_INTEGER);
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 4);
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.debug = options.debug;
    const deadline = this.deadlineController.signal;
    deadline.addEventListener(
      "abort",
      () => {
        for (const controller of this.inFlight) controller.abort(deadline.reason);
      },
      { once: true },
    );
    if (this.deadline !== undefined) {
      const remaining = this.deadline - this.clock.now().getTime();
      if (remaining <= 0) this.deadlineController.abort();
      else this.deadlineTimer = setTimeout(() => this.deadlineController.abort(), remaining).unref();
    }
  }

  get deadlineReached(): boolean {
    return this.deadlineController.signal.aborted;
  }

  /** The first KubeConfig; throws the connector's errors (unknown cluster, EKS down) before any GET. */
  async start(): Promise<void> {
    await this.currentRequester();
  }

  close(): void {
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    // Queued requests leave their queues (the limiters listen to this signal) instead of hanging.
    this.deadlineController.abort(SESSION_CLOSED);
  }

  /** Ends the session for every request: they would all fail the same way. */
  private failAll(error: DomainError): void {
    this.fatal ??= error;
    this.deadlineController.abort(error);
  }

  async request(pathAndQuery: string, accept: string): Promise<RequestResult> {
    let reauthenticated = false;
    let attempts = 0;
    let last: RequestResult | undefined;
    while (attempts < this.maxAttempts) {
      if (this.deadlineReached) return this.deadlineResult(last);
      const requester = await this.currentRequester();
      const queuedAt = this.debug ? performance.now() : 0;
      if (!(await this.acquire())) return this.logged(pathAndQuery, this.deadlineResult(last), attempts, queuedAt);
      const sentAt = this.debug ? performance.now() : 0;
      attempts++;
      this.counters.requests++;
      let response: KubeResponse;
      const signal = this.requestSignal();
      try {
        response = await requester.get(pathAndQuery, accept, signal.signal);
        if (this.debug) this.logRequest(pathAndQuery, attempts, queuedAt, sentAt, { status: response.status });
      } catch (error) {
        if (this.debug) this.logRequest(pathAndQuery, attempts, queuedAt, sentAt, { error: summarizeError(error) });
        if (this.deadlineReached) return this.deadlineResult(last);
        const certificate = certificateProblem(error);
        if (certificate) {
          // The CA may have rotated or the endpoint moved: the connector looks them up again for the next read.
          this.connector.invalidate(this.cluster, "endpoint");
          this.failAll(new ClusterCertificateError(this.cluster, requester.server, certificate, { cause: error }));
          return { kind: "failed", message: this.fatal?.message ?? certificate, attempts, cause: error };
        }
        if (!this.endpointDoubted && addressProblem(error)) {
          // No such host, or nothing listening: the cluster's endpoint may have moved (once per session).
          this.endpointDoubted = true;
          this.connector.invalidate(this.cluster, "endpoint");
        }
        last = { kind: "failed", message: describeNetworkError(error, this.requestTimeoutMs), attempts, cause: error };
        this.firstFailure ??= `GET ${pathAndQuery.split("?")[0]}: ${last.message}`;
        if (!(await this.backoff(attempts, undefined))) return last;
        continue;
      } finally {
        signal.done();
        this.release();
      }
      this.answers++;
      const retryAfter = retryAfterMs(response.headers["retry-after"], this.clock);
      if (response.status === 429 || (response.status === 503 && retryAfter !== undefined)) {
        this.clusterLimit.overloaded();
      } else {
        this.clusterLimit.answered();
      }
      last = { kind: "response", response, attempts };
      if (response.status === 401) {
        if (reauthenticated) {
          this.failAll(
            new ClusterAccessDeniedError(
              this.cluster,
              `kubernetes cluster "${this.cluster}" rejected the credentials (401 Unauthorized, also with fresh ones)`,
              { action: "the Kubernetes API (401 Unauthorized)" },
            ),
          );
          return last;
        }
        reauthenticated = true;
        attempts--; // a fresh token is not a retry of the same request
        this.counters.retries++;
        await this.reauthenticate(requester);
        continue;
      }
      if (!RETRYABLE.has(response.status)) return last;
      if (!(await this.backoff(attempts, retryAfter))) return last;
    }
    return last ?? { kind: "failed", message: "no attempt was made", attempts };
  }

  /**
   * Aborted by the per-request timeout or the session's deadline. One controller and one timer cleared on
   * completion, the deadline reaching it through the session's set of them (one listener per session, not one
   * per request): AbortSignal.timeout + AbortSignal.any per request cost weak references, a composite-signal
   * registry and a TimeoutError built when each 10 s timer fired long after its answer, all of it on the hot
   * path of a 50-request burst.
   */
  private requestSignal(): { signal: AbortSignal; done: () => void } {
    const controller = new AbortController();
    const deadline = this.deadlineController.signal;
    if (deadline.aborted) controller.abort(deadline.reason);
    const timer = setTimeout(
      () => controller.abort(new DOMException(`no answer within ${this.requestTimeoutMs} ms`, "TimeoutError")),
      this.requestTimeoutMs,
    );
    this.inFlight.add(controller);
    return {
      signal: controller.signal,
      done: () => {
        clearTimeout(timer);
        this.inFlight.delete(controller);
      },
    };
  }

  /** One debug line per request on the wire: its answer or error, time on the wire, time waiting for a slot. */
  private logRequest(
    pathAndQuery: string,
    attempt: number,
    queuedAt: number,
    sentAt: number,
    outcome: { status: number } | { error: string },
  ): void {
    this.debug?.debug("kube request", {
      cluster: this.cluster,
      path: pathAndQuery.split("?")[0],
      attempt,
      ...outcome,
      ms: Math.round(performance.now() - sentAt),
      limiterWaitMs: Math.round(sentAt - queuedAt),
    });
  }

  /** A request that never got a slot before the deadline: how long it waited. */
  private logged(pathAndQuery: string, result: RequestResult, attempts: number, queuedAt: number): RequestResult {
    this.debug?.debug("kube request not sent: deadline", {
      cluster: this.cluster,
      path: pathAndQuery.split("?")[0],
      attempts,
      limiterWaitMs: Math.round(performance.now() - queuedAt),
    });
    return result;
  }

  private deadlineResult(last: RequestResult | undefined): RequestResult {
    if (this.fatal) return { kind: "failed", message: this.fatal.message, attempts: 0 };
    const why = last && last.kind !== "deadline" ? ` (last attempt: ${summarize(last)})` : "";
    return { kind: "deadline", message: `not read in time${why}` };
  }

  /**
   * Waits before the next attempt; false when no attempt is left or the wait would pass the deadline. The delays
   * are the shared policy's (shared/retry.ts); the loop stays here because it is not a batch's: a wait that would
   * pass the status's deadline is not started, the deadline's abort wakes it, and a 401 retries without waiting.
   */
  private async backoff(attempts: number, retryAfter: number | undefined): Promise<boolean> {
    if (attempts >= this.maxAttempts) return false;
    const jittered = backoffDelay(attempts, { baseMs: BACKOFF_BASE_MS, capMs: BACKOFF_CAP_MS, random: this.random });
    let wait = jittered;
    if (retryAfter !== undefined) {
      if (this.deadline === undefined && retryAfter > MAX_RETRY_AFTER_MS) return false;
      wait = Math.max(retryAfter, jittered);
    }
    if (this.deadline !== undefined && this.clock.now().getTime() + wait >= this.deadline) return false;
    this.counters.retries++;
    this.debug?.debug("kube retry", { cluster: this.cluster, attempt: attempts + 1, waitMs: Math.round(wait) });
    await sleep(wait, this.deadlineController.signal);
    return !this.deadlineReached;
  }

  private currentRequester(): Promise<KubeRequester> {
    this.requester ??= this.connect();
    return this.requester;
  }

  private async connect(): Promise<KubeRequester> {
    const access = await this.connector.access(this.cluster);
    return this.pools.requester(this.cluster, access);
  }

  private async reauthenticate(used: KubeRequester): Promise<void> {
    const current = await this.currentRequester().catch(() => undefined);
    if (current !== used) return; // another request already refreshed the credentials
    this.counters.reauthentications++;
    this.connector.invalidate(this.cluster);
    this.requester = this.connect();
    await this.requester;
  }

  /** This status's own slot, then the cluster's; false when the deadline passed while waiting. */
  private async acquire(): Promise<boolean> {
    const signal = this.deadlineController.signal;
    if (!(await this.ownLimit.acquire(this, signal))) return false;
    if (!(await this.clusterLimit.acquire(this, signal))) {
      this.ownLimit.release();
      return false;
    }
    this.counters.maxInFlight = Math.max(this.counters.maxInFlight, this.ownLimit.inFlight);
    return true;
  }

  private release(): void {
    this.clusterLimit.release();
    this.ownLimit.release();
  }
}

function summarize(result: RequestResult): string {
  if (result.kind === "response") return `HTTP ${result.response.status}`;
  return result.message;
}

/** TLS verification failures (OpenSSL's codes as Node reports them): the certificate does not match the CA. */
const CERTIFICATE_CODES = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_SIGNATURE_FAILURE",
  "CERT_UNTRUSTED",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

function certificateProblem(error: unknown): string | undefined {
  for (let cause = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; cause && depth < 5; depth++) {
    if (typeof cause.code === "string" && CERTIFICATE_CODES.has(cause.code)) return cause.code;
    cause = cause.cause as typeof cause;
  }
  return undefined;
}

/** DNS has no such host, or the host refuses: what an API server that moved looks like (not a timeout). */
const ADDRESS_CODES = new Set(["ENOTFOUND", "ECONNREFUSED", "EHOSTUNREACH"]);

function addressProblem(error: unknown): boolean {
  for (let cause = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; cause && depth < 5; depth++) {
    if (typeof cause.code === "string" && ADDRESS_CODES.has(cause.code)) return true;
    cause = cause.cause as typeof cause;
  }
  return false;
}

/** An error's name/code for a debug line (no URL: it may carry a path prefix the registry keeps private). */
function summarizeError(error: unknown): string {
  const err = error as { name?: string; code?: string; cause?: { code?: string } };
  return err?.cause?.code ?? err?.code ?? err?.name ?? "Error";
}

function describeNetworkError(error: unknown, timeoutMs: number): string {
  const err = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err?.name === "TimeoutError") return `no answer within ${timeoutMs} ms`;
  const cause = err?.cause;
  const detail = cause?.code ? `${cause.code}${cause.message ? `: ${cause.message}` : ""}` : (err?.message ?? "");
  return `request failed: ${detail || String(error)}`;
}
