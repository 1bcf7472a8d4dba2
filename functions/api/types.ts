import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import type { SnapshotStore } from "../../shared/history/snapshot-store.ts";
import type { ReliabilitySettings } from "../../shared/usecases/reliability.ts";
import type { LambdaRuntime } from "../_shared/runtime.ts";
import type { ApiSettings } from "./config.ts";

export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2;

/** What a route tells the telemetry middleware about the request it served. */
export interface RequestAnnotations {
  /** The route template, e.g. `GET /clusters/{cluster}/releases` (a low-cardinality metric dimension). */
  route?: string;
  cluster?: string;
  /** `namespace/name` */
  release?: string;
  revision?: number;
  resourceCount?: number;
  /** The status report is partial because the deadline passed. */
  partial?: boolean;
  /** How to get a smaller response from this route, for the 413 message. */
  sizeHint?: string;
}

/** The Lambda context as routes see it: annotations ride along on the same object. */
export interface ApiContext extends Context {
  annotations?: RequestAnnotations;
  /** Set by the compression middleware for @middy/http-content-encoding. */
  preferredEncoding?: string;
  preferredEncodings?: string[];
}

/** Everything a route needs, built once per cold start: the shared Lambda runtime plus the API's settings. */
export interface ApiDeps extends Pick<LambdaRuntime, "store" | "clusters" | "kube" | "clock" | "logger" | "metrics"> {
  settings: ApiSettings;
  /** The status-history snapshots (SNAPSHOTS_TABLE); the history routes answer 502 without it. */
  snapshots?: SnapshotStore;
  /** The audits' period and the history's retention (AUDIT_SCHEDULE, SNAPSHOT_RETENTION_DAYS); defaults 5 min, 90 days. */
  history?: ReliabilitySettings;
}
