/**
 * One audit pass in-process, without SQS (CLI `audit`): the planner's plan fed
 * straight to the worker's code, message by message, with progress reported.
 */

import { arrayAuditQueue } from "../audit/sqs-audit-queue.ts";
import type { ClusterScope } from "../clusters/scope.ts";
import type { AuditRun } from "../snapshots/model.ts";
import { planAudit } from "./audit-plan.ts";
import { type AuditDeps, auditMessage, type ReleaseOutcome } from "./audit-release.ts";

export interface AuditPassResult {
  run: AuditRun;
  releases: ReleaseOutcome[];
}

export async function runAuditPass(
  deps: AuditDeps & { scope: ClusterScope },
  request: { runId: string; cluster?: string; onProgress?: (done: number, total: number) => void },
): Promise<AuditPassResult> {
  const queue = arrayAuditQueue();
  const plan = await planAudit(
    {
      store: deps.store,
      auditRuns: deps.auditRuns,
      queue,
      clusters: deps.scope,
      clock: deps.clock,
      logger: deps.logger,
    },
    { runId: request.runId, cluster: request.cluster },
  );
  const total = plan.run.planned;
  const releases: ReleaseOutcome[] = [];
  request.onProgress?.(0, total);
  // Messages of different clusters run side by side; the limiter bounds each cluster.
  await Promise.all(
    queue.messages.map(async (message) => {
      const outcome = await auditMessage(deps, message);
      releases.push(...outcome.releases.map((r) => ({ ...r, cluster: message.cluster })));
      request.onProgress?.(releases.length, total);
    }),
  );
  return { run: await deps.auditRuns.getRun(request.runId), releases };
}
