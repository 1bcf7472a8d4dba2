import type { SnapshotStore } from "../../shared/snapshots/snapshot-store.ts";
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
}
