import type { ClusterConnector } from "../clusters/connector.ts";
import { type KubeRequester, type KubeResponse, requesterFor } from "./http.ts";

/**
 * One status read against one cluster: every GET of it (discovery, resources,
 * related pods) goes through `request`, which owns the rules that make the
 * fan-out safe to run wide:
 * - at most `concurrency` requests in flight (a slot is held only while a
 *   request is on the wire, never while a retry waits);
 * - a per-request timeout, and an absolute deadline after which nothing new
 *   starts and in-flight requests are aborted ("not read in time" beats a
 *   Lambda timeout that would lose every result);
 * - retries on 429/5xx/network errors with jittered exponential backoff,
 *   honouring Retry-After, never sleeping past the deadline, bounded attempts;
 * - a 401 invalidates the connector's credentials once for the whole session
 *   (concurrent 401s share one refresh) and the request is retried once.
 */

export interface SessionOptions {
  cluster: string;
  connector: ClusterConnector;
  /** Absolute time (epoch ms) after which no request runs. */
  deadline?: number;
  concurrency?: number;
  requestTimeoutMs?: number;
  maxAttempts?: number;
  /** Wall clock for the deadline; injectable for tests. */
  now?: () => number;
  random?: () => number;
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

export const DEFAULT_CONCURRENCY = 16;
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_ATTEMPTS = 4;
const BACKOFF_BASE_MS = 100;
const BACKOFF_CAP_MS = 2_000;
/** Without a deadline, a Retry-After longer than this is not waited for. */
const MAX_RETRY_AFTER_MS = 10_000;
const RETRYABLE = new Set([429, 500, 502, 503, 504]);

export class KubeSession {
  readonly cluster: string;
  readonly counters: SessionCounters = { requests: 0, retries: 0, maxInFlight: 0, reauthentications: 0 };
  private readonly connector: ClusterConnector;
  private readonly deadline?: number;
  private readonly concurrency: number;
  private readonly requestTimeoutMs: number;
  private readonly maxAttempts: number;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly deadlineController = new AbortController();
  private readonly deadlineTimer?: NodeJS.Timeout;
  private requester?: Promise<KubeRequester>;
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(options: SessionOptions) {
    this.cluster = options.cluster;
    this.connector = options.connector;
    this.deadline = options.deadline;
    this.concurrency = Math.max(1, Math.floor(options.concurrency ?? DEFAULT_CONCURRENCY));
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    if (this.deadline !== undefined) {
      const remaining = this.deadline - this.now();
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
    // Wake queued requests so they see the closed session instead of hanging.
    this.deadlineController.abort();
    for (const wake of this.waiting.splice(0)) wake();
  }

  async request(pathAndQuery: string, accept: string): Promise<RequestResult> {
    let reauthenticated = false;
    let attempts = 0;
    let last: RequestResult | undefined;
    while (attempts < this.maxAttempts) {
      if (this.deadlineReached) return this.deadlineResult(last);
      const requester = await this.currentRequester();
      if (!(await this.acquire())) return this.deadlineResult(last);
      attempts++;
      this.counters.requests++;
      let response: KubeResponse;
      const signal = this.requestSignal();
      try {
        response = await requester.get(pathAndQuery, accept, signal.signal);
      } catch (error) {
        if (this.deadlineReached) return this.deadlineResult(last);
        last = { kind: "failed", message: describeNetworkError(error, this.requestTimeoutMs), attempts, cause: error };
        if (!(await this.backoff(attempts, undefined))) return last;
        continue;
      } finally {
        signal.done();
        this.release();
      }
      last = { kind: "response", response, attempts };
      if (response.status === 401 && !reauthenticated) {
        reauthenticated = true;
        attempts--; // a fresh token is not a retry of the same request
        this.counters.retries++;
        await this.reauthenticate(requester);
        continue;
      }
      if (!RETRYABLE.has(response.status)) return last;
      if (!(await this.backoff(attempts, retryAfterMs(response.headers["retry-after"], this.now())))) return last;
    }
    return last ?? { kind: "failed", message: "no attempt was made", attempts };
  }

  /**
   * Aborted by the per-request timeout or the session's deadline. One controller
   * and one timer cleared on completion: AbortSignal.timeout + AbortSignal.any
   * per request cost weak references, a composite-signal registry and a
   * TimeoutError built when each 10 s timer fired long after its answer, all of
   * it on the hot path of a 50-request burst.
   */
  private requestSignal(): { signal: AbortSignal; done: () => void } {
    const controller = new AbortController();
    const deadline = this.deadlineController.signal;
    const onDeadline = () => controller.abort(deadline.reason);
    const timer = setTimeout(
      () => controller.abort(new DOMException(`no answer within ${this.requestTimeoutMs} ms`, "TimeoutError")),
      this.requestTimeoutMs,
    );
    deadline.addEventListener("abort", onDeadline, { once: true });
    return {
      signal: controller.signal,
      done: () => {
        clearTimeout(timer);
        deadline.removeEventListener("abort", onDeadline);
      },
    };
  }

  private deadlineResult(last: RequestResult | undefined): RequestResult {
    const why = last && last.kind !== "deadline" ? ` (last attempt: ${summarize(last)})` : "";
    return { kind: "deadline", message: `not read in time${why}` };
  }

  /** Waits before the next attempt; false when no attempt is left or the wait would pass the deadline. */
  private async backoff(attempts: number, retryAfter: number | undefined): Promise<boolean> {
    if (attempts >= this.maxAttempts) return false;
    const exponential = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempts - 1));
    const jittered = exponential * (0.5 + this.random() / 2);
    let wait = jittered;
    if (retryAfter !== undefined) {
      if (this.deadline === undefined && retryAfter > MAX_RETRY_AFTER_MS) return false;
      wait = Math.max(retryAfter, jittered);
    }
    if (this.deadline !== undefined && this.now() + wait >= this.deadline) return false;
    this.counters.retries++;
    await sleep(wait, this.deadlineController.signal);
    return !this.deadlineReached;
  }

  private currentRequester(): Promise<KubeRequester> {
    this.requester ??= this.connect();
    return this.requester;
  }

  private async connect(): Promise<KubeRequester> {
    const kubeConfig = await this.connector.kubeConfig(this.cluster);
    return requesterFor(this.cluster, kubeConfig);
  }

  private async reauthenticate(used: KubeRequester): Promise<void> {
    const current = await this.currentRequester().catch(() => undefined);
    if (current !== used) return; // another request already refreshed the credentials
    this.counters.reauthentications++;
    this.connector.invalidate(this.cluster);
    this.requester = this.connect();
    await this.requester;
  }

  private async acquire(): Promise<boolean> {
    while (this.inFlight >= this.concurrency) {
      if (this.deadlineReached) return false;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    if (this.deadlineReached) return false;
    this.inFlight++;
    this.counters.maxInFlight = Math.max(this.counters.maxInFlight, this.inFlight);
    return true;
  }

  private release(): void {
    this.inFlight--;
    this.waiting.shift()?.();
  }
}

function summarize(result: RequestResult): string {
  if (result.kind === "response") return `HTTP ${result.response.status}`;
  return result.message;
}

/** Retry-After is either delay-seconds or an HTTP date (RFC 9110). */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function describeNetworkError(error: unknown, timeoutMs: number): string {
  const err = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err?.name === "TimeoutError") return `no answer within ${timeoutMs} ms`;
  const cause = err?.cause;
  const detail = cause?.code ? `${cause.code}${cause.message ? `: ${cause.message}` : ""}` : (err?.message ?? "");
  return `request failed: ${detail || String(error)}`;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
