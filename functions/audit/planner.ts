/**
 * The audit planner Lambda (EventBridge schedule, AUDIT_SCHEDULE): the run id is
 * the schedule slot of the event's time, so EventBridge's retries and a second
 * invocation for the slot resume the same run instead of planning it twice.
 */
import type { Context, EventBridgeEvent } from "aws-lambda";
import { runIdFor } from "../../shared/history/model.ts";
import { sqsAuditQueue } from "../../shared/history/sqs-audit-queue.ts";
import { type PlanResult, planAudit } from "../../shared/usecases/audit-plan.ts";
import { slotStart } from "./config.ts";
import { type AuditRuntime, auditRuntimeFromEnv, sqsClientFor } from "./deps.ts";

export type ScheduledEvent = Pick<EventBridgeEvent<"Scheduled Event", unknown>, "time"> &
  Partial<EventBridgeEvent<"Scheduled Event", unknown>>;

export function createPlannerHandler(runtime: AuditRuntime) {
  const queue = sqsAuditQueue(sqsClientFor(runtime), runtime.config.queueUrl!);
  return async (event: ScheduledEvent, _context?: Context): Promise<PlanResult> => {
    const time = event?.time ? new Date(event.time) : runtime.clock.now();
    const at = Number.isNaN(time.getTime()) ? runtime.clock.now() : time;
    const runId = runIdFor(slotStart(at, runtime.config.settings.slotSeconds));
    try {
      return await planAudit(
        {
          store: runtime.store,
          snapshots: runtime.snapshots,
          queue,
          clusters: runtime.clusters,
          clock: runtime.clock,
          logger: runtime.logger,
        },
        { runId, releasesPerMessage: runtime.config.settings.releasesPerMessage },
      );
    } finally {
      runtime.flushMetrics();
    }
  };
}

let handlerInstance: ReturnType<typeof createPlannerHandler> | undefined;

/** Lambda entry: the runtime is built on the first invocation's cold start and reused. */
export const handler = (event: ScheduledEvent, context: Context) => {
  handlerInstance ??= createPlannerHandler(auditRuntimeFromEnv(process.env, { needQueueUrl: true }));
  return handlerInstance(event, context);
};
