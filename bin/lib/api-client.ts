/**
 * The deployed API as the CLI's `remote` and `push` commands (and so `helm fleet`) call it: requests signed
 * with SigV4 (service `execute-api`) by the caller's own AWS credentials (the SDK's default chain), sent only
 * to the endpoint the caller configured, in this order:
 *   --endpoint URL, then HELM_STATUS_ENDPOINT, then the config file (HELM_STATUS_CONFIG, default
 *   ${XDG_CONFIG_HOME:-~/.config}/helm-status/config.yaml: `endpoint: URL`, optional `region: R`).
 * https only, except a loopback http:// endpoint (`npm start`), which is also the only one a request may go to
 * unsigned when no credentials are found. Redirects are never followed; every request has a deadline.
 * An error answer ({"error": {"code", "message"}}) becomes a DomainError of the matching kind, so the CLI
 * prints the API's message on one line and exits 2 for a 4xx caused by the input.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { signingLibraries } from "../../shared/eks/token.ts";
import { DomainError, type ErrorKind, ValidationError } from "../../shared/errors.ts";

export interface ApiSettings {
  endpoint: URL;
  region?: string;
  /** Where the endpoint came from, for error messages. */
  source: string;
}

export class ApiAnswerError extends DomainError {
  readonly kind: ErrorKind;
  readonly code: string;
  constructor(message: string, kind: ErrorKind, code: string) {
    super(message);
    this.kind = kind;
    this.code = code;
  }
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);
const CONFIG_KEYS = new Set(["endpoint", "region"]);

export function configFilePath(env: NodeJS.ProcessEnv): string {
  if (env.HELM_STATUS_CONFIG?.trim()) return env.HELM_STATUS_CONFIG.trim();
  const base = env.XDG_CONFIG_HOME?.trim() || join(env.HOME || homedir(), ".config");
  return join(base, "helm-status", "config.yaml");
}

/** The endpoint (and optional signing region): flag, then environment, then the config file. */
export function apiSettings(env: NodeJS.ProcessEnv, flags: { endpoint?: string }): ApiSettings {
  if (flags.endpoint) return { endpoint: endpointUrl(flags.endpoint, "--endpoint"), source: "--endpoint" };
  if (env.HELM_STATUS_ENDPOINT?.trim()) {
    return {
      endpoint: endpointUrl(env.HELM_STATUS_ENDPOINT.trim(), "HELM_STATUS_ENDPOINT"),
      source: "HELM_STATUS_ENDPOINT",
    };
  }
  const file = configFilePath(env);
  if (!existsSync(file)) {
    throw new ValidationError(
      `which API? pass --endpoint URL, set HELM_STATUS_ENDPOINT, or write "endpoint: URL" to ${file}`,
      "MissingEndpoint",
    );
  }
  let config: unknown;
  try {
    config = parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ValidationError(`cannot read ${file}: ${(error as Error).message.split("\n")[0]}`, "InvalidConfig");
  }
  if (!config || typeof config !== "object" || Array.isArray(config)) {
    throw new ValidationError(`${file}: expected a mapping with "endpoint" (and optionally "region")`, "InvalidConfig");
  }
  const record = config as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) => !CONFIG_KEYS.has(key));
  if (unknown.length > 0) {
    throw new ValidationError(
      `${file}: unknown key ${JSON.stringify(unknown[0])} (known: endpoint, region)`,
      "InvalidConfig",
    );
  }
  if (typeof record.endpoint !== "string")
    throw new ValidationError(`${file}: "endpoint" must be a URL`, "InvalidConfig");
  if (
    record.region !== undefined &&
    (typeof record.region !== "string" || !/^[a-z]{2}(-[a-z]+)+-\d$/.test(record.region))
  ) {
    throw new ValidationError(`${file}: "region" must be an AWS region such as eu-west-1`, "InvalidConfig");
  }
  return { endpoint: endpointUrl(record.endpoint, file), region: record.region as string | undefined, source: file };
}

function endpointUrl(value: string, where: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ValidationError(`${where}: ${JSON.stringify(value)} is not a URL`, "InvalidEndpoint");
  }
  const loopback = LOOPBACK.has(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
    throw new ValidationError(
      `${where}: the API endpoint must be https:// (http:// only on this machine)`,
      "InvalidEndpoint",
    );
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new ValidationError(
      `${where}: the API endpoint is a base URL, without credentials, query or fragment`,
      "InvalidEndpoint",
    );
  }
  return url;
}

export interface ApiRequest {
  method: "GET" | "POST";
  /** Path below the endpoint, starting with `/`; segments already valid names (validated by the caller). */
  path: string;
  query?: Record<string, string | undefined>;
  body?: string;
  contentType?: string;
  /** More headers to send (and sign), e.g. MCP's Accept and protocol version. */
  headers?: Record<string, string>;
  timeoutMs: number;
}

export interface ApiClient {
  readonly settings: ApiSettings;
  request(request: ApiRequest): Promise<{ status: number; contentType: string; body: string }>;
}

export function createApiClient(env: NodeJS.ProcessEnv, settings: ApiSettings): ApiClient {
  return {
    settings,
    async request(request) {
      const url = new URL(settings.endpoint.href);
      // A bare origin's pathname is "/": the stage path, if any, without its trailing slash, then the route.
      url.pathname = `${url.pathname.replace(/\/+$/, "")}${request.path}`;
      const query: Record<string, string> = {};
      for (const [key, value] of Object.entries(request.query ?? {})) {
        if (value !== undefined) {
          query[key] = value;
          url.searchParams.set(key, value);
        }
      }
      const headers: Record<string, string> = { host: url.host, accept: "*/*", ...request.headers };
      if (request.contentType) headers["content-type"] = request.contentType;
      const signed = await sign(env, settings, { method: request.method, url, query, headers, body: request.body });
      let response: Response;
      try {
        response = await fetch(url, {
          method: request.method,
          headers: signed,
          body: request.body,
          redirect: "manual",
          signal: AbortSignal.timeout(request.timeoutMs),
        });
      } catch (error) {
        const cause =
          (error as Error).name === "TimeoutError" ? `no answer within ${request.timeoutMs} ms` : describe(error);
        throw new ApiAnswerError(
          `the API at ${url.origin} (${settings.source}): ${cause}`,
          "unavailable",
          "ApiUnreachable",
        );
      }
      const body = await response.text();
      const contentType = response.headers.get("content-type") ?? "";
      if (response.status >= 300 && response.status < 400) {
        throw new ApiAnswerError(
          `the API answered ${response.status} (a redirect, not followed): check the endpoint ${url.origin}${settings.endpoint.pathname}`,
          "misconfigured",
          "ApiRedirect",
        );
      }
      if (response.status >= 400) throw answerError(response.status, body);
      return { status: response.status, contentType, body };
    },
  };
}

async function sign(
  env: NodeJS.ProcessEnv,
  settings: ApiSettings,
  request: { method: string; url: URL; query: Record<string, string>; headers: Record<string, string>; body?: string },
): Promise<Record<string, string>> {
  const credentials = await callerCredentials(env, settings);
  if (!credentials) return request.headers;
  const region = signingRegion(env, settings);
  const [{ Sha256 }, { HttpRequest }, { SignatureV4 }] = await signingLibraries();
  const signer = new SignatureV4({ service: "execute-api", region, credentials, sha256: Sha256 });
  const signed = await signer.sign(
    new HttpRequest({
      method: request.method,
      protocol: request.url.protocol,
      hostname: request.url.hostname,
      port: request.url.port ? Number(request.url.port) : undefined,
      path: request.url.pathname,
      query: request.query,
      headers: request.headers,
      body: request.body,
    }),
  );
  return signed.headers as Record<string, string>;
}

/**
 * The caller's credentials: the keys in the command's environment, else the SDK's default chain (profile, SSO,
 * web identity, container, IMDS). None is an error, except for a loopback endpoint (`npm start`).
 */
async function callerCredentials(env: NodeJS.ProcessEnv, settings: ApiSettings) {
  const accessKeyId = env.AWS_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY?.trim();
  if (accessKeyId && secretAccessKey) {
    return { accessKeyId, secretAccessKey, sessionToken: env.AWS_SESSION_TOKEN?.trim() || undefined };
  }
  const { fromNodeProviderChain } = await import("@aws-sdk/credential-providers");
  try {
    return await fromNodeProviderChain()();
  } catch (error) {
    if (LOOPBACK.has(settings.endpoint.hostname)) return undefined;
    throw new ValidationError(
      `no AWS credentials to sign the request to ${settings.endpoint.origin}: ${(error as Error).message} ` +
        "(set AWS_PROFILE, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or use your CI's OIDC role)",
      "NoCredentials",
    );
  }
}

function signingRegion(env: NodeJS.ProcessEnv, settings: ApiSettings): string {
  const fromHost = /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$/.exec(settings.endpoint.hostname)?.[1];
  const region = settings.region ?? fromHost ?? env.AWS_REGION?.trim() ?? env.AWS_DEFAULT_REGION?.trim();
  if (region) return region;
  if (LOOPBACK.has(settings.endpoint.hostname)) return "us-east-1";
  throw new ValidationError(
    `which region signs requests to ${settings.endpoint.hostname}? set AWS_REGION or "region:" in ${settings.source}`,
    "MissingRegion",
  );
}

const KIND_BY_STATUS: Record<number, ErrorKind> = {
  400: "validation",
  403: "forbidden",
  404: "not-found",
  409: "conflict",
  413: "too-large",
  504: "timeout",
};

function answerError(status: number, body: string): ApiAnswerError {
  let code = `Http${status}`;
  let message = `the API answered ${status}`;
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown; message?: unknown }; message?: unknown };
    if (typeof parsed.error?.message === "string") message = parsed.error.message;
    else if (typeof parsed.message === "string") message = `${message}: ${parsed.message}`; // API Gateway's own (IAM)
    if (typeof parsed.error?.code === "string") code = parsed.error.code;
  } catch {
    // Not JSON (a proxy's page): the status says enough, the body may be long.
  }
  const kind = KIND_BY_STATUS[status] ?? (status === 401 ? "forbidden" : status >= 500 ? "unavailable" : "validation");
  return new ApiAnswerError(message, kind, code);
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
