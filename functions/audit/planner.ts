/**
 * The audit planner Lambda (EventBridge schedule, AUDIT_SCHEDULE): the run id is
 * the schedule slot of the event's time, so EventBridge's retries and a second
 * invocation for the slot resume the same run instead of planning it twice.
 */
import type { EventBridgeEvent } from "aws-lambda";
import { sqsAuditQueue } from "../../shared/audit/sqs-audit-queue.ts";
import { runIdFor, runTimeNear } from "../../shared/snapshots/model.ts";
import { type PlanResult, planAudit } from "../../shared/usecases/audit-plan.ts";
import { lambdaEntry, withTelemetry } from "../_shared/shell.ts";
import { slotStart } from "./config.ts";
import { type AuditRuntime, auditRuntimeFromEnv, recordSeconds, sqsClientFor } from "./deps.ts";

export type ScheduledEvent = Pick<EventBridgeEvent<"Scheduled Event", unknown>, "time"> &
  Partial<EventBridgeEvent<"Scheduled Event", unknown>>;

/** `slotSeconds` overrides AUDIT_SCHEDULE's period (npm start plans every AUDIT_INTERVAL seconds). */
export function createPlannerHandler(runtime: AuditRuntime, options: { slotSeconds?: number } = {}) {
  const slotSeconds = options.slotSeconds ?? runtime.config.settings.slotSeconds;
  const queue = sqsAuditQueue(sqsClientFor(runtime), runtime.config.queueUrl!);
  return withTelemetry(runtime.telemetry, async (event: ScheduledEvent): Promise<PlanResult> => {
    // The event's time names the run (EventBridge's retries resume it), but only when it is near this clock:
    // a run id from the future would order every real run before it (issue #25 item 2).
    const now = runtime.clock.now();
    const { at, clamped } = runTimeNear(event?.time ? new Date(event.time) : undefined, now);
    if (clamped) {
      runtime.logger.warn("audit event time is ahead of this function's clock; planning the current slot", {
        eventTime: String(event.time).slice(0, 40),
        now: now.toISOString(),
      });
    }
    const runId = runIdFor(slotStart(at, slotSeconds));
    await publishAuditLag(runtime, at);
    return planAudit(
      {
        store: runtime.store,
        auditRuns: runtime.auditRuns,
        queue,
        clusters: runtime.clusters,
        clock: runtime.clock,
        logger: runtime.logger,
      },
      { runId, releasesPerMessage: runtime.config.settings.releasesPerMessage },
    );
  });
}

/**
 * AuditLag (seconds since the last completed run), for the deploy's alarm: a run is complete when every
 * planned release is done. Read from the newest few runs; none completed yet -> since the oldest of them.
 */
async function publishAuditLag(runtime: AuditRuntime, now: Date): Promise<void> {
  const { items } = await runtime.auditRuns.listRuns({ limit: 10 });
  const completed = items.find((run) => run.plannedAt && run.done >= run.planned && run.lastDoneAt);
  const since = completed?.lastDoneAt ?? items.at(-1)?.startedAt;
  if (!since) return;
  recordSeconds(runtime, "AuditLag", Math.max(0, Math.round((now.getTime() - Date.parse(since)) / 1000)));
}

/** The Lambda entry point (serverless.yml: auditPlanner). */
export const handler = lambdaEntry(() =>
  createPlannerHandler(auditRuntimeFromEnv(process.env, { needQueueUrl: true })),
);
