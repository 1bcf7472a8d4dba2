import type { SyncPolicy } from "../../shared/clusters/connector.ts";
import type { SnapshotStore } from "../../shared/snapshots/snapshot-store.ts";
import type { SyncStateStore } from "../../shared/store/sync-state.ts";
import type { ReliabilitySettings } from "../../shared/usecases/reliability.ts";
import type { HttpContext, HttpEvent, HttpResult } from "../_shared/http/types.ts";
import type { LambdaRuntime } from "../_shared/runtime.ts";
import type { ApiSettings } from "./config.ts";

export type ApiEvent = HttpEvent;
export type ApiResult = HttpResult;
export type ApiContext = HttpContext;

/** Everything a route needs, built once per cold start: the shared Lambda runtime plus the API's settings. */
export interface ApiDeps extends Pick<LambdaRuntime, "store" | "clusters" | "kube" | "clock" | "logger" | "metrics"> {
  settings: ApiSettings;
  /** The status-history snapshots (SNAPSHOTS_TABLE); the history routes answer 502 without it. */
  snapshots?: SnapshotStore;
  /** The release sync's records, cursor, last run and lease (in the releases table); the sync routes need it. */
  syncState?: SyncStateStore;
  /** The registry's `sync` switch of a cluster (absent: every namespace). */
  syncPolicy?: (cluster: string) => SyncPolicy | undefined;
  /** The audits' period and the history's retention (AUDIT_SCHEDULE, SNAPSHOT_RETENTION_DAYS); defaults 5 min, 90 days. */
  history?: ReliabilitySettings;
}
