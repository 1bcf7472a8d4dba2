/**
 * After each audit of a release with an objective (its `helm-status/slo` annotation in the manifest the worker
 * already loaded, or the cluster registry's `slo`):
 * its burn state over the last 3 days of history (shared/snapshots/slo.ts), and, when the state changed since the
 * last notification, one notification: a log line, and the Slack webhook when configured. The state is swapped
 * conditionally in the store first, so of racing or redelivered audits exactly one notifies, and a steady state
 * never notifies again. Each audit counts the release's state in an EMF metric with two bounded dimensions
 * (cluster, state: ok | ticket | page). A failure here is logged and counted, never fails the audit.
 */
import type { ClusterSummary } from "../clusters/connector.ts";
import { registryObjectives } from "../clusters/scope.ts";
import type { Logger } from "../ports.ts";
import type { ReleaseKey } from "../release/model.ts";
import { DEFAULT_AUDIT_INTERVAL_SECONDS, defaultRules } from "../snapshots/reliability.ts";
import { expiresAtFor } from "../snapshots/retention.ts";
import { type BurnState, LONGEST_BURN_WINDOW_MS, objectiveOf, type SloReport, sloReport } from "../snapshots/slo.ts";
import type { SloStateStore } from "../snapshots/slo-state-store.ts";
import type { SnapshotStore } from "../snapshots/snapshot-store.ts";
import { buildTimeline, gapThresholdMs } from "../snapshots/timeline.ts";
import type { ChangeEventDeps } from "./change-events.ts";

export interface SloWatchDeps extends ChangeEventDeps {
  /** The release's recent history (its burn state is computed from it). */
  snapshots: SnapshotStore;
  /** The burn state last notified, swapped once per change. */
  sloStates: SloStateStore;
  /** The registry, for its `slo` objectives (a release's annotation comes first). */
  clusters?: { list(): ClusterSummary[] };
  retentionDays: number;
  /** The audits' period (the timeline's gap threshold); default 5 minutes. */
  auditIntervalSeconds?: number;
}

const MAX_READ = 1000;

/** The release's burn state after this audit (undefined without an objective); notifies on a change. */
export async function watchSlo(
  deps: SloWatchDeps,
  release: ReleaseKey,
  manifest: string,
): Promise<BurnState | undefined> {
  const { objective } = objectiveOf(
    manifest,
    release,
    deps.clusters && registryObjectives(deps.clusters, release.cluster),
  );
  if (objective === undefined) return undefined;
  try {
    const now = deps.clock.now();
    const rules = defaultRules((deps.auditIntervalSeconds ?? DEFAULT_AUDIT_INTERVAL_SECONDS) * 1000);
    const since = new Date(now.getTime() - LONGEST_BURN_WINDOW_MS - gapThresholdMs(rules));
    const [page, stored] = await Promise.all([
      deps.snapshots.list(release, { since, limit: MAX_READ }, now),
      deps.sloStates.sloState(release, now),
    ]);
    const span = { since: now.getTime() - LONGEST_BURN_WINDOW_MS, until: now.getTime(), now: now.getTime() };
    const report = sloReport(buildTimeline(page.items, span.now, rules).pieces, objective, span);
    deps.metrics.count("SloBurnState", 1, { cluster: release.cluster, state: report.state });
    // Nothing stored means "ok, never notified": a release that starts ok says nothing.
    if (report.state === (stored ?? "ok")) return report.state;
    const expiresAt = expiresAtFor(now.getTime(), deps.retentionDays);
    if ((await deps.sloStates.swapSloState(release, stored, report.state, now, expiresAt)) !== "ok")
      return report.state;
    await notify(deps, release, report, stored ?? "ok");
    return report.state;
  } catch (error) {
    deps.logger.warn("SLO burn not computed", { ...release, error: (error as Error).message });
    deps.metrics.count("SloWatchFailed", 1);
    return undefined;
  }
}

async function notify(deps: SloWatchDeps, release: ReleaseKey, report: SloReport, from: string): Promise<void> {
  const burns = Object.entries(report.burnRates)
    .map(([w, rate]) => `${w} ${rate === null ? "-" : `${rate.toFixed(1)}x`}`)
    .join(", ");
  const objective = `${(report.objective * 100).toFixed(3).replace(/\.?0+$/, "")}%`;
  const headline = `${release.namespace}/${release.name} on ${release.cluster}: SLO ${objective} ${from} → ${report.state}`;
  (deps.logger as Logger).info("release SLO burn changed", {
    event: "slo-burn-changed",
    ...release,
    objective: report.objective,
    from,
    to: report.state,
    burnRates: report.burnRates,
    budgetRemaining: report.budgetRemaining,
  });
  if (!deps.slack) return;
  const budget =
    report.budgetRemaining === null ? "-" : `${(report.budgetRemaining * 100).toFixed(1)}% of the 3-day budget left`;
  try {
    await deps.slack.post({
      text: headline,
      blocks: [
        { type: "header", text: { type: "plain_text", text: headline.slice(0, 150), emoji: false } },
        {
          type: "section",
          text: { type: "mrkdwn", text: `*Burn rates* (× the allowed rate): ${burns}\n*Budget*: ${budget}` },
        },
      ],
    });
    deps.metrics.count("SloNotificationsSent", 1);
  } catch (error) {
    // The state already moved: this change is not posted again (the log line above has it).
    deps.logger.warn("SLO notification not delivered", { ...release, error: (error as Error).message });
    deps.metrics.count("SloNotificationsFailed", 1);
  }
}
