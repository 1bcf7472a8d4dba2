/**
 * The audit planner: page the deployed-releases index (never a Scan), pack each
 * cluster's releases into messages, send them, and record the run. The run id
 * is the schedule slot, so a planner retried or run twice for the slot resumes
 * the run instead of planning it again: parts already sent are skipped, and a
 * run whose planning finished plans nothing. Messages alternate between clusters (see interleave).
 */

import type { AuditMessage, AuditQueue } from "../audit/audit-message.ts";
import { type ClusterScope, inScope } from "../clusters/scope.ts";
import type { Clock, Logger } from "../ports.ts";
import type { ReleaseSummary } from "../release/model.ts";
import type { AuditRunStore } from "../snapshots/audit-run-store.ts";
import type { AuditRun } from "../snapshots/model.ts";
import type { ReleaseStore } from "../store/release-store.ts";

export interface PlanDeps {
  store: ReleaseStore;
  auditRuns: AuditRunStore;
  queue: AuditQueue;
  clusters: ClusterScope;
  clock: Clock;
  logger: Logger;
}

export interface PlanRequest {
  runId: string;
  /** Releases per message (default 10). */
  releasesPerMessage?: number;
  /** Only this cluster (CLI `audit --cluster`). */
  cluster?: string;
}

export interface PlanResult {
  run: AuditRun;
  /** Messages sent by this call (0 when the run was planned before). */
  sent: number;
  /** The run's planning had finished before: nothing was sent. */
  alreadyPlanned: boolean;
}

/** Bounds the index paging: 2,000 pages of up to 1,000 releases. */
const MAX_PAGES = 2_000;

export async function planAudit(deps: PlanDeps, request: PlanRequest): Promise<PlanResult> {
  const perMessage = Math.max(1, Math.min(100, request.releasesPerMessage ?? 10));
  const run = await deps.auditRuns.startRun(request.runId, deps.clock.now().toISOString());
  if (run.plannedAt) {
    deps.logger.info("audit run already planned", { runId: request.runId, planned: run.planned });
    const { sentParts: _s, ...stored } = run;
    return { run: stored, sent: 0, alreadyPlanned: true };
  }

  const byCluster = new Map<string, ReleaseSummary[]>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await deps.store.listDeployed({ limit: 1000, cursor });
    for (const release of result.items) {
      if (request.cluster && release.cluster !== request.cluster) continue;
      // A release of a cluster the registry no longer has is not audited (its reads would be 404s).
      if (!inScope(deps.clusters, release.cluster)) continue;
      const list = byCluster.get(release.cluster) ?? [];
      list.push(release);
      byCluster.set(release.cluster, list);
    }
    cursor = result.cursor;
    if (!cursor) break;
  }

  const already = new Set(run.sentParts);
  const perCluster = [...byCluster]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([cluster, releases]) => {
      const parts: AuditMessage[] = [];
      for (let i = 0; i * perMessage < releases.length; i++) {
        const part = `${cluster}-${i}`;
        if (already.has(part)) continue;
        parts.push({
          v: 1,
          runId: request.runId,
          part,
          cluster,
          releases: releases
            .slice(i * perMessage, (i + 1) * perMessage)
            .map((r) => ({ namespace: r.namespace, name: r.name, revision: r.revision })),
        });
      }
      return parts;
    });
  const messages = interleave(perCluster);
  await deps.queue.send(messages, (sent) =>
    deps.auditRuns.recordSent(
      request.runId,
      sent.map((m) => ({ id: m.part, releases: m.releases.length, cluster: m.cluster })),
    ),
  );
  await deps.auditRuns.finishPlanning(request.runId, deps.clock.now().toISOString());
  const stored = await deps.auditRuns.getRun(request.runId);
  deps.logger.info("audit run planned", {
    runId: request.runId,
    planned: stored.planned,
    messages: stored.messages,
    clusters: stored.clusters,
    resumed: already.size > 0,
  });
  return { run: stored, sent: messages.length, alreadyPlanned: false };
}

/**
 * The clusters' messages taken in turn (a-0, b-0, c-0, a-1, ...): a worker's batch (10 messages) then spans
 * clusters, so AUDIT_CLUSTER_CONCURRENCY per cluster adds up across them; cluster by cluster, a batch would
 * hold one cluster and audit at most that many releases at once.
 */
export function interleave<T>(lists: T[][]): T[] {
  const out: T[] = [];
  const longest = Math.max(0, ...lists.map((list) => list.length));
  for (let i = 0; i < longest; i++) for (const list of lists) if (i < list.length) out.push(list[i]);
  return out;
}
