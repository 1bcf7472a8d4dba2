/**
 * What happens when an audit finds a change: a structured log line, an EMF metric
 * (through a small port, Powertools in Lambda), and optionally a Slack message.
 * A notification is claimed per snapshot in the store, so a retried worker does
 * not post twice; a failing webhook is logged and counted, never fatal: the
 * snapshot is already written.
 */

import { changeMessage, type SlackWebhook } from "../notify/slack-webhook.ts";
import type { Clock, Logger } from "../ports.ts";
import { describeChange } from "../snapshots/changes.ts";
import type { Snapshot } from "../snapshots/model.ts";
import type { NotificationClaims } from "../snapshots/notification-claims.ts";
import type { AttributionStore } from "../who/attribution.ts";
import { precedingLine, precedingWrites } from "../who/preceded.ts";
import { readShownAttributions } from "../who/shown.ts";

/** Counts, with dimensions (EMF in Lambda). */
export interface MetricsSink {
  count(name: string, value: number, dimensions?: Record<string, string>): void;
}

export const silentMetrics: MetricsSink = { count() {} };

export interface ChangeEventDeps {
  notifications: NotificationClaims;
  logger: Logger;
  metrics: MetricsSink;
  clock: Clock;
  slack?: SlackWebhook;
  /** Base URL of the API, for the link in Slack messages (AUDIT_API_URL). */
  apiBaseUrl?: string;
  /** Who made the revisions and writes that preceded a change (docs/who.md); absent: the message names nobody. */
  attributions?: AttributionStore;
}

export async function publishChange(deps: ChangeEventDeps, snapshot: Snapshot, previous?: Snapshot): Promise<void> {
  const from = previous?.health.overall;
  const precededBy = await whatPreceded(deps, snapshot, previous);
  deps.logger.info("release health changed", {
    event: "release-changed",
    snapshotId: snapshot.id,
    cluster: snapshot.release.cluster,
    namespace: snapshot.release.namespace,
    release: snapshot.release.name,
    runId: snapshot.runId,
    from,
    to: snapshot.health.overall,
    changes: snapshot.changes.map(describeChange),
    ...(precededBy.length ? { precededBy } : {}),
  });
  deps.metrics.count("ReleaseChanges", 1, { cluster: snapshot.release.cluster, health: snapshot.health.overall });
  if (!deps.slack) return;
  if (!(await deps.notifications.claimNotification(snapshot.id, deps.clock.now()))) return;
  try {
    await deps.slack.post(changeMessage(snapshot, previous, deps.apiBaseUrl, precededBy));
    await deps.notifications.finishNotification(snapshot.id, "sent", deps.clock.now());
    deps.metrics.count("ChangeNotificationsSent", 1);
  } catch (error) {
    deps.logger.warn("change notification not delivered", {
      snapshotId: snapshot.id,
      error: (error as Error).message,
    });
    deps.metrics.count("ChangeNotificationsFailed", 1);
    await deps.notifications.finishNotification(snapshot.id, "failed", deps.clock.now()).catch(() => {});
  }
}

/**
 * The attributed revisions and writes between the last audit that saw the release as it was and the first that saw
 * the change (`revision 5 by ci-deployer 2 min before`): one read of the release's attributions, as a channel may
 * see them (no ARN). Nothing when there is no previous snapshot or no store; a failed read is only logged.
 */
async function whatPreceded(deps: ChangeEventDeps, snapshot: Snapshot, previous?: Snapshot): Promise<string[]> {
  if (!deps.attributions || !previous) return [];
  // The release's attributions only: the message does not say whether the cluster's logging is off.
  const shown = await readShownAttributions(
    deps.attributions,
    snapshot.release,
    "public",
    (error) => deps.logger.warn("attributions not read", { error: (error as Error)?.message ?? String(error) }),
    { clusterLogging: false },
  );
  const window = { after: previous.lastSeenAt, until: snapshot.firstSeenAt };
  return precedingWrites(shown, window).map((write) => precedingLine(write, snapshot.firstSeenAt));
}
