/**
 * A small local HTTP server in front of the API Lambda handler: each request
 * becomes a real API Gateway HTTP API (payload format 2.0) event plus a Lambda
 * context, and the handler's result goes back as API Gateway would send it. The
 * routes live only in the handler; nothing here knows about them. A request from another host or site is
 * refused before it becomes an event (request-guard.ts: DNS rebinding, cross-site writes).
 */

import { isUtf8 } from "node:buffer";
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from "node:http";
import type { AddressInfo } from "node:net";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import { SECURITY_HEADERS } from "../functions/_shared/http/security-headers.ts";
import type { LocalJwtAuthorizer } from "./jwt-authorizer.ts";
import { localLambdaContext } from "./lambda-context.ts";
import { refuseForeignRequest } from "./request-guard.ts";

export type LambdaHttpHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;

export interface LocalServerOptions {
  handler: LambdaHttpHandler;
  /** 0 picks a free port. */
  port?: number;
  /** Per-invocation budget, as the function's timeout (API Gateway's integration limit is 30 s). */
  timeoutMs?: number;
  /**
   * Invocations run at once (default 16); later requests wait their turn, first come first
   * served, their budget counting from arrival as API Gateway's does. On AWS each concurrent
   * request has its own Lambda; here they share one event loop, and 200 at once starved it
   * (timers fired seconds late: DynamoDB "did not answer in time" 504s, p99 over 30 s, and
   * RSS growing with every extra connection pool in use).
   */
  maxConcurrency?: number;
  /** API Gateway's JWT authorizer for the routes under its path prefix (local/jwt-authorizer.ts); none: no check. */
  jwt?: Pick<LocalJwtAuthorizer, "pathPrefix" | "verify">;
  /**
   * Listen now but answer every request 503 (Retry-After) until `open()`: `npm start` needs the URL to start the
   * chat webhooks, and nothing may answer (not even /healthz) before every route of its banner is mounted.
   */
  closed?: boolean;
}

export interface LocalServer {
  url: string;
  port: number;
  /** Starts serving (a server started `closed`); idempotent. */
  open(): void;
  close(): Promise<void>;
}

/** API Gateway HTTP APIs refuse request bodies over 10 MB. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;
const TEXT_TYPES = /^(text\/|application\/(json|yaml|x-yaml|xml|x-www-form-urlencoded|[\w.+-]+\+json))/i;

export async function startLocalServer(options: LocalServerOptions): Promise<LocalServer> {
  const timeoutMs = options.timeoutMs ?? 29_000;
  const slots = new Slots(options.maxConcurrency ?? 16);
  let open = !options.closed;
  const server: Server = createServer((req, res) => {
    const refusal = refuseForeignRequest(req, (server.address() as AddressInfo).port) ?? (open ? undefined : STARTING);
    if (refusal) {
      res.shouldKeepAlive = false;
      writeError(
        res,
        refusal.status,
        refusal.code,
        refusal.message,
        refusal === STARTING ? { "retry-after": "1" } : {},
      );
      return;
    }
    serve(req, res, options.handler, timeoutMs, slots, options.jwt).catch((error) => {
      process.stderr.write(`local server: ${(error as Error).stack ?? error}\n`);
      if (res.headersSent) {
        res.destroy();
        return;
      }
      writeError(res, 502, "BadGateway", "the function failed without an answer; see the server's log");
    });
  });
  // Requests Node's parser refuses before any handler runs (NUL or spaces in the path, an unknown method,
  // headers over 16 KB): the same {error: {code, message}} shape as every other answer, then close.
  server.on("clientError", (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || error.code === "ECONNRESET") {
      socket.destroy();
      return;
    }
    const [status, code, message] = clientErrorAnswer(error.code);
    const body = JSON.stringify({ error: { code, message } });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
        "x-content-type-options: nosniff\r\n" +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
  // Loopback only: the local stack serves simulated clusters and has no auth in front of it.
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 3000, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    open: () => {
      open = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A FIFO semaphore: at most `limit` invocations at once. */
class Slots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly limit: number;
  constructor(limit: number) {
    this.limit = Math.max(1, limit);
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  handler: LambdaHttpHandler,
  timeoutMs: number,
  slots: Slots,
  jwt?: LocalServerOptions["jwt"],
) {
  const arrived = Date.now();
  const chunks: Buffer[] = [];
  let size = 0;
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > MAX_BODY_BYTES) {
    tooLarge(res, declared);
    return;
  }
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      tooLarge(res, size);
      return;
    }
    chunks.push(chunk as Buffer);
  }
  const event = toApiGatewayEvent(req, Buffer.concat(chunks));
  if (jwt && event.rawPath.startsWith(jwt.pathPrefix)) {
    const verified = await jwt.verify(event.headers.authorization);
    if (!verified) {
      // API Gateway's own answer for a missing or refused token (the function is never called).
      const body = JSON.stringify({ message: "Unauthorized" });
      res.writeHead(401, {
        ...SECURITY_HEADERS,
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(body)),
        "www-authenticate": "Bearer",
      });
      res.end(body);
      return;
    }
    (event.requestContext as { authorizer?: unknown }).authorizer = { jwt: verified };
  }
  const result = await slots.run(async () => {
    if (res.destroyed) return undefined; // the client gave up while waiting
    const context = lambdaContext(Math.max(0, timeoutMs - (Date.now() - arrived)));
    return (await handler(event, context)) as APIGatewayProxyStructuredResultV2 | string | undefined;
  });
  if (res.destroyed) return;
  writeResult(res, result);
}

function tooLarge(res: ServerResponse, bytes: number): void {
  res.shouldKeepAlive = false;
  writeError(
    res,
    413,
    "RequestTooLarge",
    `the request body is ${bytes} bytes or more, over API Gateway's ${MAX_BODY_BYTES}-byte limit`,
  );
  // Stop reading what is left of the body; the answer is already on its way.
  res.once("finish", () => res.req.destroy());
}

const STARTING = {
  status: 503,
  code: "Starting",
  message: "npm start is still starting (the sync, the audits, the chat webhooks): try again in a moment",
};

function writeError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify({ error: { code, message } });
  res.writeHead(status, {
    ...headers,
    ...SECURITY_HEADERS,
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(body)),
    "cache-control": "no-store",
  });
  res.end(body);
}

function clientErrorAnswer(code: string | undefined): [number, string, string] {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return [431, "RequestHeaderFieldsTooLarge", "the request headers are over the 16 KB limit"];
    case "HPE_INVALID_METHOD":
      return [400, "BadRequest", "malformed request: the method is not an HTTP method"];
    case "HPE_INVALID_URL":
      return [400, "BadRequest", "malformed request: the path has characters a URL cannot hold (NUL, space, control)"];
    case "ERR_HTTP_REQUEST_TIMEOUT":
    case "HPE_HEADERS_TIMEOUT":
      return [408, "RequestTimeout", "the request did not arrive in time"];
    default:
      return [400, "BadRequest", `malformed HTTP request (${code ?? "unparseable"})`];
  }
}

/**
 * The event API Gateway builds for a `$default` route (headers lower-cased, repeats joined with commas).
 * The path is passed as sent: WHATWG URL parsing would resolve `/namespaces/../releases` to another
 * route (the cluster-wide list); the router sees the `..` segment and refuses it instead.
 */
export function toApiGatewayEvent(req: IncomingMessage, body: Buffer): APIGatewayProxyEventV2 {
  const target = req.url ?? "/";
  const url = new URL(target, "http://localhost");
  const origin = target.startsWith("/") ? target : `${url.pathname}${url.search}`;
  const queryAt = origin.indexOf("?");
  const rawPath = queryAt === -1 ? origin : origin.slice(0, queryAt);
  const rawQueryString = queryAt === -1 ? "" : origin.slice(queryAt + 1);
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i].toLowerCase();
    const value = req.rawHeaders[i + 1];
    if (name === "cookie") {
      cookies.push(
        ...value
          .split(";")
          .map((c) => c.trim())
          .filter(Boolean),
      );
      continue;
    }
    headers[name] = headers[name] === undefined ? value : `${headers[name]},${value}`;
  }
  const query: Record<string, string> = {};
  for (const [key, value] of url.searchParams) {
    query[key] = query[key] === undefined ? value : `${query[key]},${value}`;
  }
  const now = new Date();
  const requestId = randomUUID();
  // A text type whose bytes are not UTF-8 goes base64 (as API Gateway does for binary), so the function
  // sees the bytes and can refuse them, instead of text with U+FFFD in place of each bad byte.
  const isText = body.length === 0 || (TEXT_TYPES.test(headers["content-type"] ?? "") && isUtf8(body));
  return {
    version: "2.0",
    routeKey: "$default",
    rawPath,
    rawQueryString,
    ...(cookies.length > 0 ? { cookies } : {}),
    headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    requestContext: {
      accountId: "000000000000",
      apiId: "local",
      domainName: headers.host ?? "127.0.0.1",
      domainPrefix: "local",
      http: {
        method: (req.method ?? "GET").toUpperCase(),
        path: rawPath,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? "127.0.0.1",
        userAgent: headers["user-agent"] ?? "",
      },
      requestId,
      routeKey: "$default",
      stage: "$default",
      time: apiGatewayTime(now),
      timeEpoch: now.getTime(),
    },
    ...(body.length > 0 ? { body: isText ? body.toString("utf8") : body.toString("base64") } : {}),
    isBase64Encoded: body.length > 0 && !isText,
  };
}

export function lambdaContext(timeoutMs: number, functionName = "helm-status-api-local"): Context {
  return localLambdaContext(functionName, timeoutMs);
}

function writeResult(res: ServerResponse, result: APIGatewayProxyStructuredResultV2 | string | undefined) {
  // API Gateway's format 2.0 inference: a result without statusCode is a 200 JSON body.
  if (result === undefined || typeof result === "string" || typeof result !== "object" || !("statusCode" in result)) {
    res.writeHead(200, { ...SECURITY_HEADERS, "content-type": "application/json" });
    res.end(typeof result === "string" ? result : JSON.stringify(result ?? null));
    return;
  }
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name.toLowerCase()] = String(value);
  if (result.cookies?.length) headers["set-cookie"] = result.cookies;
  const body =
    result.body === undefined ? Buffer.alloc(0) : Buffer.from(result.body, result.isBase64Encoded ? "base64" : "utf8");
  headers["content-length"] = String(body.length);
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(body);
}

function apiGatewayTime(date: Date): string {
  const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${pad(date.getUTCDate())}/${months[date.getUTCMonth()]}/${date.getUTCFullYear()}:${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`;
}
