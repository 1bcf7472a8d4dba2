/**
 * The release model: Helm v3/v4 release JSON, field names exactly as
 * `helm status -o json` prints them, so a release imported from Helm's storage
 * and one pushed by CI look the same. Only chart *metadata* is kept (never the
 * templates, values or files: they are what makes Helm's Secrets overflow).
 */

/** Helm v4's statuses (pkg/release/common/status.go). */
export const RELEASE_STATUSES = [
  "unknown",
  "deployed",
  "uninstalled",
  "superseded",
  "failed",
  "uninstalling",
  "pending-install",
  "pending-upgrade",
  "pending-rollback",
] as const;
export type ReleaseStatus = (typeof RELEASE_STATUSES)[number];

export function isReleaseStatus(value: unknown): value is ReleaseStatus {
  return typeof value === "string" && (RELEASE_STATUSES as readonly string[]).includes(value);
}

export interface ReleaseInfo {
  /** RFC 3339 (nanosecond) timestamps are kept as the stored strings: JS Date would drop precision and offset. */
  first_deployed?: string;
  last_deployed?: string;
  deleted?: string;
  description?: string;
  status: ReleaseStatus;
  notes?: string;
}

export interface ChartMetadata {
  name: string;
  version: string;
  appVersion?: string;
  apiVersion?: string;
  description?: string;
}

export interface HookLastRun {
  started_at?: string;
  completed_at?: string;
  /** Unknown, Running, Succeeded, Failed */
  phase: string;
}

/** A hook's last run in Helm's field order (HookExecution: started_at, completed_at, phase), as `-o json` prints it. */
export function orderedLastRun(run: HookLastRun): HookLastRun {
  const ordered: HookLastRun = {} as HookLastRun;
  if (run.started_at) ordered.started_at = run.started_at;
  if (run.completed_at) ordered.completed_at = run.completed_at;
  ordered.phase = run.phase;
  return ordered;
}

export interface Hook {
  name: string;
  kind: string;
  path: string;
  manifest: string;
  /** pre-install, post-install, ..., test */
  events: string[];
  last_run?: HookLastRun;
  weight?: number;
  delete_policies?: string[];
  output_log_policies?: string[];
}

export interface Release {
  name: string;
  namespace: string;
  /** The revision. */
  version: number;
  info?: ReleaseInfo;
  /** Chart metadata only; `undefined` means "release chart is missing". */
  chart?: { metadata: ChartMetadata };
  /** User-supplied values. Never returned by the status API. */
  config?: Record<string, unknown>;
  manifest: string;
  hooks?: Hook[];
  labels?: Record<string, string>;
  apply_method?: string;
}

/** A hook as stored in revision metadata: everything but its manifest. */
export type HookMetadata = Omit<Hook, "manifest">;

/** A revision without its manifest bodies: what history and listings read. */
export interface ReleaseMetadata extends Omit<Release, "manifest" | "hooks"> {
  hooks?: HookMetadata[];
}

/** A release's identity: one table holds many clusters. */
export interface ReleaseKey {
  cluster: string;
  namespace: string;
  name: string;
}

/** One line of `helm list`: the latest revision of a release. */
export interface ReleaseSummary extends ReleaseKey {
  revision: number;
  status: ReleaseStatus;
  /** info.last_deployed as stored */
  updated?: string;
  chart?: ChartMetadata;
  description?: string;
}
