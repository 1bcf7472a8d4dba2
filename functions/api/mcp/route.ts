/**
 * POST /mcp: MCP's streamable HTTP transport on the API function, stateless (a new server and transport per
 * request, no session id, JSON answers rather than an SSE stream), so any Lambda instance answers any request.
 * The SDK's web-standard transport takes a `Request` and gives a `Response`; this route builds the one from the
 * API Gateway v2 event and the other back into the Lambda result, so no Node HTTP server runs in the Lambda.
 * GET (a server-sent stream) and DELETE (a session's end) get the router's 405: stateless has neither.
 * The IAM mount is `/mcp`; signed-in viewers reach it as `/dashboard/api/mcp` (viewer.ts), narrowed to their grants.
 */
import { requestBody } from "../../_shared/http/body.ts";
import { annotate, defineRoute, type RouteDefinition } from "../../_shared/http/route.ts";
import type { ApiDeps, ApiEvent, ApiResult } from "../types.ts";

export const MCP_PATH = "/mcp";

/** A tool call's arguments are a few names and times; 64 KiB is generous and keeps huge arguments out (413). */
export const MCP_MAX_BODY_BYTES = 64 * 1024;

export function mcpRoutes(deps: ApiDeps): RouteDefinition[] {
  return [
    defineRoute("POST", MCP_PATH, async (event, context) => {
      annotate(context, { sizeHint: "ask for less: a smaller max or limit, or release_status with drift false" });
      const body = requestBody(event, MCP_MAX_BODY_BYTES, "send smaller tool arguments");
      const text = typeof body === "string" ? body : body.toString("utf8");
      const message = parsedJson(text);
      if (Array.isArray(message)) return batchRefused();
      const requestId = event.requestContext?.requestId ?? context.awsRequestId;
      // The SDK and the tools load on the first MCP request: the other routes' cold starts skip them (answer.ts).
      const { answerMcp } = await import("./answer.ts");
      // The message parsed here is handed over, so the transport reads no body stream; a body that is no JSON goes
      // to the transport as it came, for its own answer (400, "Parse error").
      const request = webRequest(event, message === undefined ? text : undefined);
      const answer = await answerMcp(deps, context, request, message, requestId);
      return { ...answer, headers: { ...answer.headers, "cache-control": "no-store" } };
    }),
  ];
}

/** The body as JSON, or undefined when it is not JSON. */
function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The event as the `Request` the transport reads (headers already lower-cased by the HTTP stack). */
function webRequest(event: ApiEvent, body: string | undefined): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined) headers.set(name, value);
  }
  const host = event.requestContext?.domainName ?? "localhost";
  return new Request(`https://${host}${MCP_PATH}`, { method: "POST", headers, body });
}

/**
 * A JSON-RPC batch (an array) is refused: MCP 2025-06-18 dropped batching, and one message per request keeps
 * each tool call within one request's deadline and size limit.
 */
function batchRefused(): ApiResult {
  return {
    statusCode: 400,
    headers: { "content-type": "application/json", "cache-control": "no-store" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      error: {
        code: -32600,
        message: "Invalid Request: JSON-RPC batches are not supported; send one message per request",
      },
      id: null,
    }),
  };
}
