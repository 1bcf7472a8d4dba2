import type { Grants } from "../../shared/access/grants.ts";
import type { SyncPolicy } from "../../shared/clusters/connector.ts";
import type { HistoryStores } from "../../shared/snapshots/history-stores.ts";
import type { SyncStateStore } from "../../shared/store/sync-state.ts";
import type { FleetCache } from "../../shared/usecases/fleet.ts";
import type { ReliabilitySettings } from "../../shared/usecases/reliability.ts";
import type { AttributionStore } from "../../shared/who/attribution.ts";
import type { HttpContext, HttpEvent, HttpResult } from "../_shared/http/types.ts";
import type { LambdaRuntime } from "../_shared/runtime.ts";
import type { ApiSettings } from "./config.ts";
import type { DashboardConfig } from "./dashboard-config.ts";

export type ApiEvent = HttpEvent;
export type ApiResult = HttpResult;
/** The shell's context, plus who signed in for a dashboard request (functions/api/viewer.ts; none: sign-in off). */
export interface ApiContext extends HttpContext {
  viewer?: { subject: string; grants?: Grants };
}

/** Everything a route needs, built once per cold start: the shared Lambda runtime plus the API's settings. */
export interface ApiDeps extends Pick<LambdaRuntime, "store" | "clusters" | "kube" | "clock" | "logger" | "telemetry"> {
  settings: ApiSettings;
  /** The dashboard's settings; absent (tests): sign-in required, nobody granted anything. */
  dashboard?: DashboardConfig;
  /** The dashboard's joined fleet, kept 30 s by a warm function (shared/usecases/fleet.ts). */
  fleetCache?: FleetCache;
  /** The status history's stores the routes read (SNAPSHOTS_TABLE); the history routes answer 502 without them. */
  historyStores?: Pick<HistoryStores, "snapshots" | "auditRuns" | "rollups">;
  /** The release sync's records, cursor, last run and lease (in the releases table); the sync routes need it. */
  syncState?: SyncStateStore;
  /** The registry's `sync` switch of a cluster (absent: every namespace). */
  syncPolicy?: (cluster: string) => SyncPolicy | undefined;
  /** The audits' period and the history's retention (AUDIT_SCHEDULE, SNAPSHOT_RETENTION_DAYS); defaults 5 min, 90 days. */
  history?: ReliabilitySettings;
  /** Who made each revision and drift write (docs/who.md); absent: history and status say nothing of who. */
  attributions?: AttributionStore;
}
