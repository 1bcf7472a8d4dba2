/**
 * The in-memory rollups, notification claims and SLO states (tests, `STORE_DRIVER=memory`): each a Map behind its
 * port, kept as long as the process (tests and one-shot audits).
 */
import type { ReleaseKey } from "../release/model.ts";
import { releaseId } from "./memory-snapshot-store.ts";
import { type NotificationClaims, STALE_CLAIM_MS } from "./notification-claims.ts";
import { expired } from "./retention.ts";
import type { RollupDay } from "./rollup-items.ts";
import type { RollupStore } from "./rollup-store.ts";
import type { SloStateStore } from "./slo-state-store.ts";

export class MemoryRollups implements RollupStore {
  /** Day items by `<day>#<cluster>`. */
  readonly #days = new Map<string, RollupDay>();

  /** Adds a message's figures to their day item (MemoryAuditRuns, with the message's completion). */
  add(rollup: RollupDay): void {
    const key = `${rollup.day}#${rollup.cluster}`;
    const stored = this.#days.get(key) ?? { day: rollup.day, cluster: rollup.cluster, values: {} };
    for (const [name, value] of Object.entries(rollup.values)) stored.values[name] = (stored.values[name] ?? 0) + value;
    this.#days.set(key, stored);
  }

  async rollups(days: readonly string[], cluster: string | undefined, _now: Date): Promise<RollupDay[]> {
    const wanted = new Set(days);
    return [...this.#days.values()]
      .filter((r) => wanted.has(r.day) && (cluster === undefined || r.cluster === cluster))
      .sort((a, b) => a.day.localeCompare(b.day) || a.cluster.localeCompare(b.cluster))
      .map((r) => structuredClone(r));
  }
}

export class MemoryNotificationClaims implements NotificationClaims {
  readonly #claims = new Map<string, { state: "sending" | "sent" | "failed"; at: number }>();

  async claimNotification(id: string, now: Date, staleMs = STALE_CLAIM_MS): Promise<boolean> {
    const state = this.#claims.get(id);
    if (state && (state.state === "sent" || (state.state === "sending" && now.getTime() - state.at < staleMs))) {
      return false;
    }
    this.#claims.set(id, { state: "sending", at: now.getTime() });
    return true;
  }

  async finishNotification(id: string, outcome: "sent" | "failed", now: Date): Promise<void> {
    this.#claims.set(id, { state: outcome, at: now.getTime() });
  }
}

export class MemorySloStates implements SloStateStore {
  readonly #states = new Map<string, { state: string; expiresAt: number }>();

  async sloState(release: ReleaseKey, now: Date): Promise<string | undefined> {
    const stored = this.#states.get(releaseId(release));
    return stored && !expired(stored, now) ? stored.state : undefined;
  }

  // Typed by the port (one signature, written once).
  swapSloState: SloStateStore["swapSloState"] = async (release, from, to, at, expiresAt) => {
    const stored = this.#states.get(releaseId(release));
    const current = stored && !expired(stored, at) ? stored.state : undefined;
    if (current !== from) return "conflict";
    this.#states.set(releaseId(release), { state: to, expiresAt });
    return "ok";
  };
}
