/**
 * A release's availability objective and its error-budget burn, from the timeline (pure). The objective is a
 * release annotation or label `helm-status/slo: "99.5"` in its manifest, or the cluster's registry entry (`slo`);
 * a malformed annotation is ignored with a note (a malformed registry entry stops the start, like any other field).
 * Burn rates are the SRE workbook's multiwindow, multi-burn-rate alerts (chapter 5, table 5-8): the share of
 * covered time not Current over a window, divided by the share the objective allows; gaps count in neither.
 *   page:   1 h and 5 min both burning > 14.4 (2% of a 30-day budget in an hour), or 6 h and 30 min > 6 (5% in 6 h);
 *   ticket: 3 d and 6 h both > 1 (10% in 3 days).
 */
import type { RegistryObjectives } from "../clusters/connector.ts";
import { OBJECTIVE_RULE, parseObjective } from "../input/objective.ts";
import { coveredTime, type TimelinePiece } from "./timeline.ts";

export const SLO_KEY = "helm-status/slo";

const MIN = 60_000;
export const BURN_WINDOWS = [
  { name: "5m", ms: 5 * MIN },
  { name: "30m", ms: 30 * MIN },
  { name: "1h", ms: 60 * MIN },
  { name: "6h", ms: 360 * MIN },
  { name: "3d", ms: 3 * 1440 * MIN },
] as const;
export type BurnWindow = (typeof BURN_WINDOWS)[number]["name"];
/** How far back the burn rates look (the 3-day window). */
export const LONGEST_BURN_WINDOW_MS = Math.max(...BURN_WINDOWS.map((w) => w.ms));

export type BurnState = "ok" | "ticket" | "page";

export interface SloReport {
  /** The objective as a share, e.g. 0.995. */
  objective: number;
  /** Of the report window's error budget ((1 - objective) x covered time), the share not spent; negative: overspent. */
  budgetRemaining: number | null;
  /** Per window ending now: bad share / allowed share; null when the audits covered none of it. */
  burnRates: Record<BurnWindow, number | null>;
  state: BurnState;
  /** Where the objective comes from: the release's `helm-status/slo` annotation or label, or the cluster registry. */
  source?: "annotation" | "registry";
}

/** `helm-status/slo: "99.5"` (annotation or label) in a manifest: the objective, or why it is ignored. */
export function objectiveFromManifest(manifest: string): { objective?: number; note?: string } {
  const values = [...manifest.matchAll(/^\s*["']?helm-status\/slo["']?\s*:\s*(.*?)\s*$/gm)].map((m) =>
    m[1].replace(/^(["'])(.*)\1$/, "$2"),
  );
  if (values.length === 0) return {};
  const distinct = [...new Set(values)];
  if (distinct.length > 1) {
    return {
      note: `${SLO_KEY} ignored: the manifest gives ${distinct.length} different values (${distinct
        .slice(0, 3)
        .map((v) => JSON.stringify(v.slice(0, 20)))
        .join(", ")})`,
    };
  }
  const objective = parseObjective(distinct[0]);
  if (objective === undefined)
    return { note: `${SLO_KEY} ignored: ${JSON.stringify(distinct[0].slice(0, 40))} ${OBJECTIVE_RULE}` };
  return { objective };
}

/**
 * A release's objective: its own annotation first (the team that owns it knows best), then the registry's entry
 * for `namespace/name`, then the registry's default for the cluster. `source` says which, for the report.
 */
export function objectiveOf(
  manifest: string | undefined,
  release: { namespace: string; name: string },
  registry: RegistryObjectives | undefined,
): { objective?: number; source?: "annotation" | "registry"; note?: string } {
  const own = manifest === undefined ? {} : objectiveFromManifest(manifest);
  if (own.objective !== undefined) return { objective: own.objective, source: "annotation" };
  const fromRegistry = registry?.releases?.[`${release.namespace}/${release.name}`] ?? registry?.default;
  if (fromRegistry !== undefined)
    return { objective: fromRegistry, source: "registry", ...(own.note ? { note: own.note } : {}) };
  return own;
}

/** The burn of `objective` over the report window [since, until) and over each burn window ending at `now`. */
export function sloReport(
  pieces: readonly TimelinePiece[],
  objective: number,
  window: { since: number; until: number; now: number },
): SloReport {
  const allowed = 1 - objective;
  const badShare = (from: number, to: number) => {
    const { perHealth, covered } = coveredTime(pieces, from, to);
    return covered > 0 ? { bad: covered - (perHealth.get("Current") ?? 0), covered } : undefined;
  };
  const burnRates = {} as Record<BurnWindow, number | null>;
  for (const w of BURN_WINDOWS) {
    const share = badShare(window.now - w.ms, window.now);
    // Four decimals: a rate is compared with 1, 6 and 14.4, and shown.
    burnRates[w.name] = share ? Math.round((share.bad / share.covered / allowed) * 10_000) / 10_000 : null;
  }
  const over = (name: BurnWindow, threshold: number) => (burnRates[name] ?? 0) > threshold;
  const state: BurnState =
    (over("1h", 14.4) && over("5m", 14.4)) || (over("6h", 6) && over("30m", 6))
      ? "page"
      : over("3d", 1) && over("6h", 1)
        ? "ticket"
        : "ok";
  const inWindow = badShare(window.since, window.until);
  return {
    objective,
    budgetRemaining: inWindow ? 1 - inWindow.bad / (allowed * inWindow.covered) : null,
    burnRates,
    state,
  };
}
