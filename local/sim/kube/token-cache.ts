import type { SimIam } from "../aws/iam.ts";
import { parseAmzDate } from "../aws/sigv4.ts";

/** The validity of a presigned GetCallerIdentity URL (eks-auth.md §4): a cached verification lasts no longer. */
const TOKEN_VALIDITY_MS = 15 * 60_000;
/** Bounds the cache: when full it starts over (clients reuse one token for minutes, so it rarely fills). */
const MAX_CACHED_TOKENS = 1000;

/**
 * Successful token verifications by exact token string. kube-apiserver caches
 * webhook token reviews (--authentication-token-webhook-cache-ttl, 2 minutes by
 * default), so EKS pays aws-iam-authenticator's STS round trip per token, not per
 * request. Recomputing the SigV4 signature on every request made the simulator's
 * CPU, not the client, the bottleneck of parallel reads.
 *
 * Stricter than the real cache: a hit still honours the token's 15-minute expiry,
 * a revoked access key and an ended role session at once.
 */
export class VerifiedTokenCache<T> {
  private readonly entries = new Map<string, { value: T; accessKeyId: string; validUntil: number }>();
  private readonly iam: SimIam;

  constructor(iam: SimIam) {
    this.iam = iam;
  }

  get(token: string, now: Date): T | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (now.getTime() > entry.validUntil || !this.iam.lookupKey(entry.accessKeyId)) {
      this.entries.delete(token);
      return undefined;
    }
    return entry.value;
  }

  /** Only for a token that just verified (so it decodes). */
  remember(token: string, accessKeyId: string, value: T): void {
    const signedAt = signingTimeOf(token);
    if (signedAt === undefined) return;
    if (this.entries.size >= MAX_CACHED_TOKENS) this.entries.clear();
    this.entries.set(token, { value, accessKeyId, validUntil: signedAt + TOKEN_VALIDITY_MS });
  }
}

function signingTimeOf(token: string): number | undefined {
  try {
    const url = new URL(Buffer.from(token.slice(token.indexOf(".") + 1), "base64url").toString("utf8"));
    for (const [key, value] of url.searchParams) {
      if (key.toLowerCase() === "x-amz-date") return parseAmzDate(value)?.getTime();
    }
  } catch {
    // Not cacheable: verify it every time.
  }
  return undefined;
}
