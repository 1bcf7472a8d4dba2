/** Faults injected into an API server's answers, settable at run time. */
export interface Faults {
  /** Added to every matching request before it is handled. */
  latencyMs: number;
  /** Uniform random extra latency in [0, jitterMs). */
  jitterMs: number;
  /** Probability (0..1) of answering with `errorStatus` instead of handling the request. */
  errorRate: number;
  errorStatus: 500 | 503 | 429;
  /** Sent as Retry-After with 429/503 errors. */
  retryAfterSeconds?: number;
  /** Probability (0..1) of destroying the connection without an answer. */
  resetRate: number;
  /** Spreads the response body over this many milliseconds. */
  slowBodyMs: number;
  /** Limits the faults to request paths this returns true for (default: all). */
  match?: (path: string) => boolean;
}

export const NO_FAULTS: Faults = {
  latencyMs: 0,
  jitterMs: 0,
  errorRate: 0,
  errorStatus: 500,
  resetRate: 0,
  slowBodyMs: 0,
};

/** A small seeded PRNG (mulberry32) so fault sequences are reproducible when a seed is given. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface RequestLogEntry {
  method: string;
  /** The path without the query string. */
  path: string;
  /** The query string, without `?` ("" when none). */
  query: string;
  accept: string;
  /** 0 when the connection was reset by a fault. */
  status: number;
  /** The Kubernetes username, "" when unauthenticated. */
  user: string;
  /** Epoch milliseconds when the request arrived, and how long it took. */
  startedAt: number;
  durationMs: number;
}

export interface RequestStats {
  total: number;
  byPath: Record<string, number>;
  maxInFlight: number;
  log: RequestLogEntry[];
}

const MAX_LOG = 100_000;

/** Counters and the request log (bounded) of one API server. */
export class StatsRecorder {
  private total = 0;
  private byPath: Record<string, number> = {};
  private inFlight = 0;
  private maxInFlight = 0;
  private log: RequestLogEntry[] = [];

  begin(path: string): void {
    this.total++;
    this.byPath[path] = (this.byPath[path] ?? 0) + 1;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
  }

  end(entry: RequestLogEntry): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (this.log.length < MAX_LOG) this.log.push(entry);
  }

  snapshot(): RequestStats {
    return { total: this.total, byPath: { ...this.byPath }, maxInFlight: this.maxInFlight, log: [...this.log] };
  }

  reset(): void {
    this.total = 0;
    this.byPath = {};
    this.maxInFlight = this.inFlight;
    this.log = [];
  }
}
