import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import type { ClusterConnector } from "../../shared/clusters/connector.ts";
import type { KubeReader } from "../../shared/kube/reader.ts";
import type { Clock, Logger } from "../../shared/ports.ts";
import type { ReleaseStore } from "../../shared/store/release-store.ts";
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

/** The structured logger the API writes (Powertools Logger fits it). */
export interface ApiLogger extends Logger {
  appendKeys(attributes: Record<string, unknown>): void;
  resetKeys(): void;
}

/** The slice of Powertools Metrics the API uses. */
export interface ApiMetrics {
  addDimension(name: string, value: string): unknown;
  addMetric(name: string, unit: "Milliseconds" | "Count" | "Bytes", value: number): unknown;
  publishStoredMetrics(): unknown;
}

/** Everything a route needs, built once per cold start. */
export interface ApiDeps {
  store: ReleaseStore;
  clusters: ClusterConnector;
  /** Reads clusters (pools, limits, discovery and manifest caches); created once per cold start. */
  kube: KubeReader;
  clock: Clock;
  logger: ApiLogger;
  metrics: ApiMetrics;
  settings: ApiSettings;
}
