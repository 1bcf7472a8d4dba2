/**
 * Where the audit runs live (the planner starts and records, each worker message completes, the API lists): one
 * port, a DynamoDB (dynamodb-audit-runs.ts) and an in-memory implementation (memory-audit-runs.ts), one contract
 * suite (test/history/audit-run-contract.ts). A message's rollup figures are added with its completion, all or
 * nothing, so each implementation is built on its side's rollups (read back through the RollupStore port).
 */
import type { Page, PageRequest } from "../store/release-store.ts";
import type { AuditRun } from "./model.ts";
import type { RollupDay } from "./rollup-items.ts";

export interface MessageTally {
  done: number;
  failed: number;
  unhealthy: number;
  changed: number;
}

/** One message the planner sent: its part id, how many releases it carries, of which cluster. */
export interface SentPart {
  id: string;
  releases: number;
  cluster: string;
}

export interface AuditRunStore {
  /** Creates the run if absent; answers the stored run either way (a retried planner resumes it). */
  startRun(runId: string, startedAt: string): Promise<AuditRun & { sentParts: string[] }>;
  /** Notes messages as sent (idempotent per part id) and adds their releases to `planned`. */
  recordSent(runId: string, parts: SentPart[]): Promise<void>;
  /** Every message is sent. */
  finishPlanning(runId: string, plannedAt: string): Promise<void>;
  /**
   * Records one message's tally once (a redelivered message adds nothing); answers whether it was new. Only the
   * parts the planner sent (recordSent, before or after) count into the run's totals. `rollups` are added to the
   * day items (rollup-items.ts) with it, all or nothing: never twice for one message.
   */
  completeMessage(
    runId: string,
    partId: string,
    tally: MessageTally,
    at: string,
    rollups?: readonly RollupDay[],
  ): Promise<boolean>;
  /** AuditRunNotFoundError when absent. */
  getRun(runId: string): Promise<AuditRun>;
  /** Newest first. */
  listRuns(page: PageRequest): Promise<Page<AuditRun>>;
}
