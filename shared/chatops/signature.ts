/**
 * Request signatures of the two chat platforms, verified over the exact bytes
 * received (API Gateway may hand the body base64-encoded: decode first, never
 * re-encode). Every check fails the same way (false), so a caller learns
 * nothing about which one it tripped; comparisons are constant-time.
 *
 * Slack (v0): `X-Slack-Signature: v0=<hex HMAC-SHA256(secret, "v0:<ts>:<body>")>`,
 * `X-Slack-Request-Timestamp` within 5 minutes of now, in both directions
 * (bolt-js only rejects the past; a future-dated capture would otherwise stay
 * replayable for as long as its date is ahead).
 * Teams (outgoing webhook): `Authorization: HMAC <base64 HMAC-SHA256(base64-decoded token, body)>`.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/** Slack's window, both directions. */
export const SLACK_TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

export interface SlackSignatureInput {
  signingSecret: string;
  /** X-Slack-Signature, as received (undefined when absent). */
  signature: string | undefined;
  /** X-Slack-Request-Timestamp, as received. */
  timestamp: string | undefined;
  /** The raw body bytes. */
  body: Buffer;
  /** Epoch milliseconds. */
  now: number;
}

export function slackSignature(signingSecret: string, timestamp: string, body: Buffer | string): string {
  const mac = createHmac("sha256", signingSecret);
  mac.update(`v0:${timestamp}:`);
  mac.update(body);
  return `v0=${mac.digest("hex")}`;
}

export function verifySlackSignature(input: SlackSignatureInput): boolean {
  const { signature, timestamp } = input;
  if (!input.signingSecret || signature === undefined || timestamp === undefined) return false;
  if (!/^\d{1,12}$/.test(timestamp)) return false;
  const skewSeconds = Math.abs(input.now / 1000 - Number(timestamp));
  if (!(skewSeconds <= SLACK_TIMESTAMP_TOLERANCE_SECONDS)) return false;
  if (!signature.startsWith("v0=")) return false;
  return constantTimeEqual(slackSignature(input.signingSecret, timestamp, input.body), signature);
}

/** The Teams security token as shown when the outgoing webhook is created (base64). */
export function teamsSignature(securityToken: string, body: Buffer | string): string {
  const key = Buffer.from(securityToken, "base64");
  return createHmac("sha256", key).update(body).digest("base64");
}

export function verifyTeamsSignature(input: {
  securityToken: string;
  /** The Authorization header as received. */
  authorization: string | undefined;
  body: Buffer;
}): boolean {
  const match = /^HMAC ([A-Za-z0-9+/]+={0,2})$/.exec(input.authorization?.trim() ?? "");
  if (!input.securityToken || !match) return false;
  return constantTimeEqual(teamsSignature(input.securityToken, input.body), match[1]);
}

/** timingSafeEqual throws on unequal lengths; the length itself is not secret (it is fixed per scheme). */
export function constantTimeEqual(expected: string, received: string): boolean {
  const a = Buffer.from(expected, "utf8");
  const b = Buffer.from(received, "utf8");
  if (a.length !== b.length) return false;
  return timingSafeEqual(a, b);
}

/**
 * Remembers signatures already accepted inside the timestamp window, so a
 * captured request cannot be replayed against the same warm instance. Bounded;
 * owned by the handler that creates it. Slack does not retry slash commands or
 * interactions, so a legitimate duplicate never occurs.
 */
export class ReplayGuard {
  readonly #seen = new Map<string, number>();
  readonly #windowMs: number;
  readonly #capacity: number;

  constructor(options: { windowMs?: number; capacity?: number } = {}) {
    this.#windowMs = options.windowMs ?? 2 * SLACK_TIMESTAMP_TOLERANCE_SECONDS * 1000;
    this.#capacity = options.capacity ?? 10_000;
  }

  /** True the first time `id` is seen within the window, false on a replay. */
  firstSeen(id: string, now: number): boolean {
    for (const [key, at] of this.#seen) {
      if (now - at <= this.#windowMs && this.#seen.size < this.#capacity) break;
      this.#seen.delete(key);
    }
    if (this.#seen.has(id)) return false;
    this.#seen.set(id, now);
    return true;
  }
}
