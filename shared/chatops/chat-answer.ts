/**
 * A chat command's answer as plain data: what answer.ts returns and acknowledge.ts answers at once, and what each
 * platform's renderer (slack-blocks.ts, teams-card.ts) turns into its message. Its own file, so the renderers and
 * the acknowledgement need the shape only, never the use cases that fill it.
 */
import type { ReleaseSummary } from "../release/model.ts";
import type { FleetEntry } from "../snapshots/model.ts";
import type { StatusReport } from "../status/report.ts";
import type { HistoryEntry } from "../usecases/history.ts";
import type { SnapshotSummary } from "../usecases/snapshots.ts";
import type { ResolvedCommand } from "./resolve.ts";

export type ChatAnswer =
  | { kind: "status"; target: Extract<ResolvedCommand, { verb: "status" }>; report: StatusReport }
  | {
      kind: "history";
      target: Extract<ResolvedCommand, { verb: "history" }>;
      /** Newest first, each with who created it when the audit log said (public: no ARN). */
      revisions: HistoryEntry[];
      more: boolean;
      /** `audit logs are off for <cluster>: ...`, said once. */
      auditLogging?: string;
    }
  | { kind: "list"; target: Extract<ResolvedCommand, { verb: "list" }>; releases: ReleaseSummary[]; more: boolean }
  | { kind: "fleet"; target: Extract<ResolvedCommand, { verb: "fleet" }>; entries: FleetEntry[]; more: boolean }
  | {
      kind: "timeline";
      target: Extract<ResolvedCommand, { verb: "timeline" }>;
      snapshots: SnapshotSummary[];
      more: boolean;
    }
  | {
      kind: "reliability";
      target: Extract<ResolvedCommand, { verb: "reliability" }>;
      /** The report as the CLI prints it (shared/usecases/reliability-text.ts). */
      lines: string[];
    }
  | { kind: "help"; usage: string; clusters: string[]; defaults: { cluster?: string; namespace?: string } }
  | { kind: "usage"; error: string; usage: string }
  | { kind: "denied"; message: string }
  | { kind: "error"; code: string; message: string; errorKind: string };
