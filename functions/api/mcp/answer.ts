/**
 * One MCP request answered: a new server (the tools bound to this caller's scope) and a stateless transport (no
 * session id; JSON rather than an SSE stream), the SDK's web-standard `Request` in, its answer as the Lambda result.
 * Loaded by route.ts with `import()` on the first MCP request, so the SDK (its protocol schemas are built when it
 * loads, ≈ 12 ms of CPU) costs the other routes' cold starts nothing (serverless.yml's zod/v4-mini alias keeps
 * esbuild's lazy wrapping of the shared zod modules sound; test/api/mcp-bundle.test.ts runs the bundle).
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { ApiContext, ApiDeps, ApiResult } from "../types.ts";
import { createMcpServer } from "./server.ts";

/** `message`: the body already parsed by route.ts (undefined when it is not JSON: the transport answers that). */
export async function answerMcp(
  deps: ApiDeps,
  context: ApiContext,
  request: Request,
  message: unknown,
  requestId: string | undefined,
): Promise<ApiResult> {
  const server = createMcpServer(deps, context, requestId);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(request, message === undefined ? {} : { parsedBody: message });
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    // Read here: the body is complete once the tool answered (JSON mode), before the server closes.
    return { statusCode: response.status, headers, body: await response.text() };
  } finally {
    await server.close();
  }
}
