/**
 * Shared by the API tests: real API Gateway HTTP API (payload 2.0) events, a
 * Lambda context, recording stand-ins for the logger and metrics sinks, and the API's dependencies with defaults.
 */
import { randomUUID } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics } from "@aws-lambda-powertools/metrics";
import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import { generateKeyPair, SignJWT } from "jose";
import { telemetryDeps } from "../../functions/_shared/telemetry.ts";
import { apiSettingsFromEnv } from "../../functions/api/config.ts";
import { type ApiHandler, createApiHandler } from "../../functions/api/handler.ts";
import type { ApiDeps, ApiResult } from "../../functions/api/types.ts";
import { apiGatewayClaims } from "../../local/jwt-authorizer.ts";
import type { ClusterConnector } from "../../shared/clusters/connector.ts";
import { createKubeReader } from "../../shared/kube/reader.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";

export interface EventOptions {
  headers?: Record<string, string>;
  body?: string;
  isBase64Encoded?: boolean;
  /** Set to mimic an explicit API Gateway route (routeKey + pathParameters) instead of `$default`. */
  route?: { key: string; pathParameters: Record<string, string> };
}

/** The event API Gateway sends for `METHOD /path?query` (shape of the AWS sample event for format 2.0). */
export function httpApiEvent(method: string, target: string, options: EventOptions = {}): APIGatewayProxyEventV2 {
  const url = new URL(target, "https://abc123.execute-api.eu-west-1.amazonaws.com");
  const query: Record<string, string> = {};
  for (const [key, value] of url.searchParams) query[key] = key in query ? `${query[key]},${value}` : value;
  const headers: Record<string, string> = {
    accept: "*/*",
    "content-length": String(options.body?.length ?? 0),
    host: url.host,
    "user-agent": "curl/8.5.0",
    "x-amzn-trace-id": `Root=1-${randomUUID().slice(0, 8)}-${randomUUID().replaceAll("-", "").slice(0, 24)}`,
    "x-forwarded-for": "203.0.113.7",
    "x-forwarded-port": "443",
    "x-forwarded-proto": "https",
    ...Object.fromEntries(Object.entries(options.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
  };
  const now = new Date();
  // What an IAM-authorized route adds (the handler must not depend on it: `npm start` has no authorizer).
  const authorizer = { authorizer: { iam: iamAuthorizer() } };
  return {
    version: "2.0",
    routeKey: options.route?.key ?? "$default",
    rawPath: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ""),
    headers,
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    ...(options.route ? { pathParameters: options.route.pathParameters } : {}),
    requestContext: {
      ...(authorizer as object),
      accountId: "123456789012",
      apiId: "abc123",
      domainName: url.host,
      domainPrefix: "abc123",
      http: {
        method,
        path: url.pathname,
        protocol: "HTTP/1.1",
        sourceIp: "203.0.113.7",
        userAgent: "curl/8.5.0",
      },
      requestId: `${randomUUID().slice(0, 14)}=`,
      routeKey: options.route?.key ?? "$default",
      stage: "$default",
      time: "02/Dec/2025:17:20:00 +0000",
      timeEpoch: now.getTime(),
    },
    ...(options.body !== undefined ? { body: options.body } : {}),
    isBase64Encoded: options.isBase64Encoded ?? false,
  };
}

function iamAuthorizer() {
  return {
    accessKey: "ASIAEXAMPLEEXAMPLE00",
    accountId: "123456789012",
    callerId: "AROAEXAMPLE:ci",
    cognitoIdentity: null,
    principalOrgId: null,
    userArn: "arn:aws:sts::123456789012:assumed-role/ci/ci",
    userId: "AROAEXAMPLE:ci",
  };
}

export function lambdaContext(remainingMs = 29_000): Context {
  const deadline = Date.now() + remainingMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: "helm-status-lambda-dev-api",
    functionVersion: "$LATEST",
    invokedFunctionArn: "arn:aws:lambda:eu-west-1:123456789012:function:helm-status-lambda-dev-api",
    memoryLimitInMB: "1024",
    awsRequestId: randomUUID(),
    logGroupName: "/aws/lambda/helm-status-lambda-dev-api",
    logStreamName: "2025/12/02/[$LATEST]0123456789abcdef",
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

export interface LogLine {
  level: string;
  message: string;
  attributes: Record<string, unknown>;
}

/** Powertools' real Logger (so its middleware injects the Lambda context), printing into `lines` instead of stdout. */
export class RecordingLogger extends Logger {
  lines: LogLine[] = [];
  constructor() {
    super({ serviceName: "helm-status-api-test", logLevel: "DEBUG" });
  }
  protected override printLog(_level: number, log: { getAttributes(): Record<string, unknown> }): void {
    const { level, message, ...attributes } = log.getAttributes();
    this.lines.push({ level: String(level), message: String(message), attributes });
  }
  /** Everything logged, as one string (for "never logs X" assertions). */
  text(): string {
    return JSON.stringify(this.lines);
  }
}

/** Powertools' real Metrics, recording each flushed EMF set instead of printing it. */
export class RecordingMetrics extends Metrics {
  published: { dimensions: Record<string, unknown>; metrics: Record<string, unknown> }[] = [];
  coldStarts = 0;
  constructor() {
    super({ namespace: "HelmStatusTest", serviceName: "helm-status-api-test" });
  }
  override captureColdStartMetric(): void {
    this.coldStarts++;
  }
  override publishStoredMetrics(): this {
    if (this.hasStoredMetrics()) {
      const emf = this.serializeMetrics() as unknown as Record<string, unknown> & {
        _aws: { CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string }[] }[] };
      };
      const [directive] = emf._aws.CloudWatchMetrics;
      this.published.push({
        dimensions: Object.fromEntries(directive.Dimensions.flat().map((name) => [name, emf[name]])),
        metrics: Object.fromEntries(directive.Metrics.map(({ Name }) => [Name, emf[Name]])),
      });
    }
    this.clearMetrics();
    this.clearDimensions();
    this.clearMetadata();
    return this;
  }
}

/** The response body as text, decoding base64 and gzip as a client would. */
export function bodyText(result: ApiResult): string {
  const raw = Buffer.from(result.body ?? "", result.isBase64Encoded ? "base64" : "utf8");
  return result.headers?.["Content-Encoding"] === "gzip" || result.headers?.["content-encoding"] === "gzip"
    ? gunzipSync(raw).toString("utf8")
    : raw.toString("utf8");
}

export function bodyJson(result: ApiResult): unknown {
  return JSON.parse(bodyText(result));
}

const signingKey = generateKeyPair("RS256");

/**
 * The event API Gateway sends for a dashboard request its JWT authorizer let through: `Authorization: Bearer <JWT>`
 * (a real RS256 token, signed here as an IdP would) and the authorizer's claims of that token (every value a string,
 * a list flattened to `[a b]`, as local/jwt-authorizer.ts hands them over too).
 */
export async function signedTokenEvent(
  method: string,
  target: string,
  claims: Record<string, unknown>,
  options: EventOptions = {},
): Promise<APIGatewayProxyEventV2> {
  const now = Math.floor(Date.now() / 1000);
  const payload = { iss: "https://idp.example", aud: "app", iat: now, exp: now + 600, ...claims };
  const token = await new SignJWT(payload)
    .setProtectedHeader({ alg: "RS256", kid: "test" })
    .sign((await signingKey).privateKey);
  const event = httpApiEvent(method, target, {
    ...options,
    headers: { ...options.headers, authorization: `Bearer ${token}` },
  });
  (event.requestContext as unknown as Record<string, unknown>).authorizer = { jwt: apiGatewayClaims(payload) };
  return event;
}

/** A connector to a registry of `clusters` that no test reaches through: the routes that only list or store. */
export function unreachedClusters(
  clusters: { name: string; region: string }[] = [{ name: "eu", region: "eu-west-1" }],
): ClusterConnector {
  return {
    list: () => clusters,
    access: async () => Promise.reject(new Error("unused")),
    invalidate: () => {},
  };
}

/**
 * The API's dependencies as a test builds them: a memory store, no reachable cluster, the wall clock, recording
 * telemetry and the default settings, each replaced by what `overrides` gives (a KubeReader over `clusters`).
 */
export function testApiDeps(overrides: Partial<ApiDeps> = {}): ApiDeps {
  const clusters = overrides.clusters ?? unreachedClusters();
  return {
    store: new MemoryReleaseStore(),
    clusters,
    kube: overrides.kube ?? createKubeReader({ connector: clusters }),
    clock: { now: () => new Date() },
    ...telemetryDeps(new RecordingLogger(), new RecordingMetrics()),
    settings: apiSettingsFromEnv({}),
    ...overrides,
  };
}

/** The API's handler over testApiDeps(overrides). */
export function testApiHandler(overrides: Partial<ApiDeps> = {}): ApiHandler {
  return createApiHandler(testApiDeps(overrides));
}
