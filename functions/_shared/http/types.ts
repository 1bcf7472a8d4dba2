import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";

/** Every HTTP function is behind API Gateway's HTTP API (payload format 2.0). */
export type HttpEvent = APIGatewayProxyEventV2;
export type HttpResult = APIGatewayProxyStructuredResultV2;

/** What a route tells the request-telemetry middleware about the request it served. */
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
export interface HttpContext extends Context {
  annotations?: RequestAnnotations;
  /** Set by the API's compression middleware for @middy/http-content-encoding. */
  preferredEncoding?: string;
  preferredEncodings?: string[];
}

export type Method = "GET" | "POST";

export type RouteFunction = (event: HttpEvent, context: HttpContext) => Promise<HttpResult>;

export interface RouteDefinition {
  method: Method;
  /** API Gateway / http-router template, e.g. `/clusters/{cluster}/releases`. */
  path: string;
  handler: RouteFunction;
}
