/**
 * One MCP request answered: a new server (the tools bound to this caller's scope) and a stateless transport (no
 * session id; JSON rather than an SSE stream), the SDK's web-standard `Request` in, its `Response` out.
 * Imported statically: an `import()` of it would spare the other routes' cold starts the SDK's load (≈ 70 ms of
 * CPU), but esbuild's lazy wrapping of the modules it reaches then broke `zod/mini` for the config reader in the
 * bundle ("... is not a constructor"), which tests on the sources do not see (docs/mcp.md, Figures).
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { ApiContext, ApiDeps } from "../types.ts";
import { createMcpServer } from "./server.ts";

export async function answerMcp(
  deps: ApiDeps,
  context: ApiContext,
  request: Request,
  requestId: string | undefined,
): Promise<Response> {
  const server = createMcpServer(deps, context, requestId);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(request);
    // Read here: the body is complete once the tool answered (JSON mode), before the server closes.
    return new Response(await response.text(), { status: response.status, headers: response.headers });
  } finally {
    await server.close();
  }
}
