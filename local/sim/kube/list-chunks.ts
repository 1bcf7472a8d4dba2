import { randomUUID } from "node:crypto";
import { ApiError, badRequest } from "./negotiation.ts";
import type { KubeObject } from "./types.ts";

/**
 * kube-apiserver's chunked LISTs (`limit` + `continue`): every page of one token
 * chain is read from the same snapshot (etcd at the first page's
 * resourceVersion), so objects created, changed or deleted while a client pages
 * through do not shift the pages. A token older than the compaction window (5
 * minutes on kube-apiserver) answers `410 Gone` with reason `Expired`, and the
 * client must start the LIST again.
 *
 * Here the snapshot is the list of (immutable, replaced-on-write) object
 * references the first page matched, kept per chain for `ttlMs` of real time,
 * at most `maxChains` at once (the oldest chain expires first). `expireAll()`
 * stands for a compaction, for tests.
 */

const DEFAULT_TTL_MS = 5 * 60_000;
const DEFAULT_MAX_CHAINS = 256;

/** kube-apiserver's text for an expired continue token (storage/errors.go, NewResourceExpiredError). */
export const EXPIRED_CONTINUE_MESSAGE =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

interface Chain {
  items: KubeObject[];
  revision: string;
  createdAt: number;
}

export interface ListPage {
  items: KubeObject[];
  meta: Record<string, unknown>;
}

export class ListChunks {
  private readonly chains = new Map<string, Chain>();
  private readonly ttlMs: number;
  private readonly maxChains: number;
  private readonly now: () => number;

  constructor(options: { ttlMs?: number; maxChains?: number; now?: () => number } = {}) {
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.maxChains = options.maxChains ?? DEFAULT_MAX_CHAINS;
    this.now = options.now ?? Date.now;
  }

  /** Every token handed out so far answers 410 from now on (a compaction). */
  expireAll(): void {
    this.chains.clear();
  }

  /** One page of `matching` (the live list, used only for a first page) as `query` asks. */
  page(matching: () => KubeObject[], query: URLSearchParams, currentRevision: string): ListPage {
    const limit = parseLimit(query.get("limit"));
    const token = query.get("continue");
    let chainId: string | undefined;
    let items: KubeObject[];
    let revision: string;
    let start = 0;
    if (token) {
      const parsed = parseToken(token);
      const chain = this.chains.get(parsed.chain);
      if (!chain || this.now() - chain.createdAt > this.ttlMs) {
        this.chains.delete(parsed.chain);
        throw new ApiError(410, "Expired", EXPIRED_CONTINUE_MESSAGE);
      }
      chainId = parsed.chain;
      ({ items, revision } = chain);
      start = Math.min(parsed.offset, items.length);
    } else {
      items = matching();
      revision = currentRevision;
    }
    const end = limit > 0 ? Math.min(items.length, start + limit) : items.length;
    const meta: Record<string, unknown> = { resourceVersion: revision };
    if (end < items.length) {
      if (!chainId) chainId = this.remember({ items, revision, createdAt: this.now() });
      meta.continue = Buffer.from(
        JSON.stringify({ v: "meta.k8s.io/v1", rv: Number(revision), chain: chainId, offset: end }),
      ).toString("base64url");
      if (!query.get("labelSelector") && !query.get("fieldSelector")) meta.remainingItemCount = items.length - end;
    } else if (chainId) {
      this.chains.delete(chainId);
    }
    return { items: items.slice(start, end), meta };
  }

  private remember(chain: Chain): string {
    while (this.chains.size >= this.maxChains) {
      const oldest = this.chains.keys().next().value as string;
      this.chains.delete(oldest);
    }
    const id = randomUUID();
    this.chains.set(id, chain);
    return id;
  }
}

function parseLimit(value: string | null): number {
  if (value === null || value === "") return 0;
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 0) throw badRequest(`invalid limit: ${value}`);
  return limit;
}

function parseToken(token: string): { chain: string; offset: number } {
  try {
    const parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as {
      chain?: unknown;
      offset?: unknown;
    };
    if (typeof parsed.chain === "string" && Number.isInteger(parsed.offset) && (parsed.offset as number) >= 0) {
      return { chain: parsed.chain, offset: parsed.offset as number };
    }
  } catch {
    // falls through to the 400 below
  }
  throw badRequest(`continue key is not valid: ${token}`);
}
