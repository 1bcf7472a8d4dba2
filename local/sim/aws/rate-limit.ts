/**
 * Request-rate quotas of the simulated EKS and STS (issue #36): a token bucket per action and AWS account, as AWS
 * throttles control-plane calls per account and Region. A request finding the bucket empty is answered the way
 * the service answers it (EKS: 429 `ThrottlingException`; STS: 400 `Throttling`), both with "Rate exceeded".
 * EKS publishes no rate for DescribeCluster (amazon-eks-ami PR #218 shows it throttling), so the defaults are a
 * choice, configurable per action. `throttleFor(action, ms)` empties an action's buckets for a while (the
 * "EKS throttles DescribeCluster for a minute" fault). Every call is counted per action and account.
 */

export type RateLimitedAction = "DescribeCluster" | "AssumeRole";

export interface AwsRate {
  /** Tokens added per second. */
  perSecond: number;
  /** Bucket size (a burst). Default: perSecond. */
  burst?: number;
}

export type AwsRates = Partial<Record<RateLimitedAction, AwsRate>>;

/**
 * EKS publishes no rate for DescribeCluster: a choice (an account's cold start of 20 clusters passes, a burst past
 * it waits). AssumeRole: a choice too, well above what a fleet's sessions need.
 */
export const DEFAULT_AWS_RATES: Record<RateLimitedAction, AwsRate> = {
  DescribeCluster: { perSecond: 10, burst: 20 },
  AssumeRole: { perSecond: 100, burst: 100 },
};

export interface AwsCallCounts {
  calls: number;
  throttled: number;
}

/** Calls per action, in total and per account. */
export type AwsCallStats = Record<string, AwsCallCounts & { accounts: Record<string, AwsCallCounts> }>;

export class AwsRateLimiter {
  private rates: Record<RateLimitedAction, AwsRate>;
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly blockedUntil = new Map<RateLimitedAction, number>();
  private counts: AwsCallStats = {};
  private readonly now: () => number;

  constructor(rates: AwsRates = {}, now: () => number = () => performance.now()) {
    this.rates = { ...DEFAULT_AWS_RATES, ...rates };
    this.now = now;
  }

  setRates(rates: AwsRates): void {
    this.rates = { ...this.rates, ...rates };
    this.buckets.clear();
  }

  /** Every call of `action` is throttled for the next `ms` (0 ends it). */
  throttleFor(action: RateLimitedAction, ms: number): void {
    this.blockedUntil.set(action, this.now() + ms);
  }

  /** Counts the call; false when it is throttled. */
  take(action: RateLimitedAction, account: string): boolean {
    const allowed = this.admit(action, account);
    this.counts[action] ??= { calls: 0, throttled: 0, accounts: {} };
    const total = this.counts[action];
    total.accounts[account] ??= { calls: 0, throttled: 0 };
    const perAccount = total.accounts[account];
    total.calls++;
    perAccount.calls++;
    if (!allowed) {
      total.throttled++;
      perAccount.throttled++;
    }
    return allowed;
  }

  stats(): AwsCallStats {
    return structuredClone(this.counts);
  }

  resetStats(): void {
    this.counts = {};
  }

  private admit(action: RateLimitedAction, account: string): boolean {
    const now = this.now();
    if (now < (this.blockedUntil.get(action) ?? 0)) return false;
    const { perSecond, burst = perSecond } = this.rates[action];
    if (!Number.isFinite(perSecond)) return true;
    const key = `${action}|${account}`;
    const bucket = this.buckets.get(key) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}
