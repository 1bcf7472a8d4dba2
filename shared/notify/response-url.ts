/**
 * Where deferred answers go, and how. A response_url comes inside the signed
 * request, but the product still never POSTs to a host an attacker could pick:
 * only https://hooks.slack.com/{commands,actions}/... unless
 * SLACK_RESPONSE_URL_ALLOW_HOSTS names more hosts (`host` = its default port,
 * `host:port` = that port; http allowed for those, e.g. a loopback receiver).
 * Redirects are not followed (a 3xx could point anywhere).
 *
 * Slack takes at most 5 posts per response_url within 30 minutes, so the
 * poster spends that budget on retries of 5xx/429/network failures (Retry-After
 * honoured, else exponential backoff with jitter) and gives up with a
 * ChatDeliveryError when it is spent.
 */
import { type Clock, type Logger, systemClock } from "../ports.ts";
import { backoffDelay, retryAfterMs, sleep as sleepFor } from "../retry.ts";
import { AllowHostsConfigError, ChatDeliveryError, ResponseUrlRefusedError } from "./errors.ts";

export const SLACK_RESPONSE_HOST = "hooks.slack.com";
/** Slack: "up to 5 times within 30 minutes". */
export const SLACK_POSTS_PER_RESPONSE_URL = 5;

export interface AllowedHost {
  host: string;
  /** Undefined: the scheme's default port only. */
  port?: number;
}

/** SLACK_RESPONSE_URL_ALLOW_HOSTS: comma-separated `host` or `host:port` (IPv6 in brackets). */
export function parseAllowHosts(value: string | undefined): AllowedHost[] {
  if (!value?.trim()) return [];
  const problems: string[] = [];
  const hosts: AllowedHost[] = [];
  for (const raw of value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean)) {
    const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(raw);
    if (!m || (m[2] !== undefined && (Number(m[2]) < 1 || Number(m[2]) > 65535))) {
      problems.push(`"${raw}" is not a host or host:port`);
      continue;
    }
    hosts.push({ host: m[1].toLowerCase(), ...(m[2] !== undefined ? { port: Number(m[2]) } : {}) });
  }
  if (problems.length > 0) {
    throw new AllowHostsConfigError(`SLACK_RESPONSE_URL_ALLOW_HOSTS: ${problems.join("; ")} (no scheme, no path)`);
  }
  return hosts;
}

/** The URL to POST to, or a ResponseUrlRefusedError saying why not (the URL itself is never echoed). */
export function checkResponseUrl(value: unknown, allowed: readonly AllowedHost[]): URL {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw new ResponseUrlRefusedError("response_url is not a URL");
  }
  if (url.username || url.password) throw new ResponseUrlRefusedError("response_url must not carry credentials");
  const defaultPort = url.protocol === "https:" ? 443 : 80;
  const port = url.port === "" ? defaultPort : Number(url.port);
  if (
    url.protocol === "https:" &&
    url.hostname === SLACK_RESPONSE_HOST &&
    port === 443 &&
    /^\/(commands|actions)\//.test(url.pathname)
  ) {
    return url;
  }
  if (url.protocol === "https:" || url.protocol === "http:") {
    const host = url.hostname.toLowerCase();
    if (allowed.some((a) => a.host === host && (a.port ?? defaultPort) === port)) return url;
  }
  throw new ResponseUrlRefusedError(
    `response_url host ${url.host || "(none)"} is not ${SLACK_RESPONSE_HOST} and not in SLACK_RESPONSE_URL_ALLOW_HOSTS`,
  );
}

export interface PostOptions {
  fetch?: typeof fetch;
  /** Posts this response_url may still take (default 5). */
  budget?: number;
  /** Per post. */
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Longest wait between two posts (a Retry-After beyond it ends the retries). */
  maxDelayMs?: number;
  logger?: Logger;
  /** For Retry-After given as a date. */
  clock?: Clock;
}

export interface PostResult {
  attempts: number;
  status: number;
}

/** POSTs `body` as JSON to an already checked response_url. */
export async function postToResponseUrl(url: URL, body: unknown, options: PostOptions = {}): Promise<PostResult> {
  const doFetch = options.fetch ?? fetch;
  const budget = Math.max(1, Math.min(options.budget ?? SLACK_POSTS_PER_RESPONSE_URL, SLACK_POSTS_PER_RESPONSE_URL));
  const sleep = options.sleep ?? sleepFor;
  const random = options.random ?? Math.random;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const payload = JSON.stringify(body);
  let last = "";
  for (let attempt = 1; attempt <= budget; attempt++) {
    let askedWait: number | undefined;
    try {
      const response = await doFetch(url, {
        method: "POST",
        headers: { "content-type": "application/json; charset=utf-8" },
        body: payload,
        redirect: "manual",
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
      const text = await response.text().catch(() => "");
      if (response.status >= 200 && response.status < 300) return { attempts: attempt, status: response.status };
      last = `HTTP ${response.status}${text ? ` ${text.slice(0, 100)}` : ""}`;
      if (response.status !== 429 && response.status < 500) {
        throw new ChatDeliveryError(`the chat platform refused the answer: ${last}`);
      }
      askedWait = retryAfterMs(response.headers.get("retry-after"), options.clock ?? systemClock);
    } catch (error) {
      if (error instanceof ChatDeliveryError) throw error;
      last = (error as Error).name === "TimeoutError" ? "timed out" : ((error as Error).message ?? String(error));
    }
    if (attempt === budget) break;
    const delay = askedWait ?? backoffDelay(attempt, { baseMs: 500, capMs: maxDelayMs, random });
    if (delay > maxDelayMs) break;
    options.logger?.warn("chat answer post failed, retrying", { attempt, delayMs: Math.round(delay), error: last });
    await sleep(delay);
  }
  throw new ChatDeliveryError(`the answer could not be delivered after retries: ${last}`);
}
