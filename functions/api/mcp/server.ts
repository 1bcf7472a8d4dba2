/**
 * The MCP server of one request: the read-only tools, bound to the caller's scope (the request's context: an IAM
 * caller sees the registry, a signed-in viewer their grants, as on the dashboard's routes). A new server per request
 * (stateless: nothing to keep between Lambda invocations).
 *
 * Read-only is enforced when a tool is called, not by hiding tools from the list: the server holds only the
 * read tools below, so a call to any other name (a "write" tool, sync, import) is an error from the dispatch
 * itself, and every tool runs only read use cases. Errors are MCP tool errors (isError) carrying what the API
 * would answer for the same failure: the one HTTP error mapping (its code and public message, never an internal
 * message, a Secret value or an ARN).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { toJsonSchemaCompat } from "@modelcontextprotocol/sdk/server/zod-json-schema-compat.js";
import { type CallToolResult, ListToolsRequestSchema, type ListToolsResult } from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import * as z from "zod";
import { type HttpErrorBody, toHttpError } from "../../_shared/http/error-mapping.ts";
import type { ApiContext, ApiDeps } from "../types.ts";
import type { ToolCall, ToolDefinition } from "./tool.ts";
import {
  fleetHealthTool,
  fleetReliability,
  releaseReliability,
  releaseTimelineTool,
  snapshotDiff,
  statusAtTool,
} from "./tools-history.ts";
import {
  listClusters,
  listReleases,
  releaseHistoryTool,
  releaseManifest,
  releaseStatusTool,
} from "./tools-releases.ts";

/** Every tool, in the order tools/list shows them. Each is a read; there is no other. */
export const MCP_TOOLS: readonly ToolDefinition[] = Object.freeze([
  listClusters,
  listReleases,
  releaseStatusTool,
  releaseHistoryTool,
  releaseManifest,
  fleetHealthTool,
  statusAtTool,
  releaseTimelineTool,
  snapshotDiff,
  releaseReliability,
  fleetReliability,
]);

/** What every tool declares: it only reads, the same call answers the same, and it reaches only this service. */
const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

const INSTRUCTIONS =
  "helm status for a fleet of EKS clusters: list_clusters first, then list_releases, release_status (live, with " +
  "HEALTH and WHY), release_history, release_manifest; the audits' history: fleet_health, status_at, " +
  "release_timeline, snapshot_diff, release_reliability, fleet_reliability. Read-only.";

/** Each tool's registration, built once per process (a server is built per request). */
const REGISTRATIONS = MCP_TOOLS.map((tool) => ({
  tool,
  config: {
    title: tool.title,
    description: tool.description,
    // Strict: an argument the tool does not know is refused, as the routes refuse an unknown query parameter.
    inputSchema: z.strictObject(tool.input),
    outputSchema: tool.output,
    annotations: { title: tool.title, ...READ_ONLY },
  },
}));

/**
 * The SDK's server checks only an elicitation's answer against a JSON Schema, and these tools never ask the user
 * anything; without this it builds an Ajv instance with its formats for every server, i.e. every request (ms each).
 */
const NO_ELICITATION: jsonSchemaValidator = {
  getValidator: () => () => ({ valid: false, data: undefined, errorMessage: "these tools never elicit input" }),
};

/**
 * tools/list's answer, built on the first tools/list of the process and kept: the SDK's McpServer turns every tool's
 * zod schemas into JSON Schema at each tools/list, i.e. at each request of a server built per request (≈ 1.6 ms of
 * CPU warm, 7-11 ms cold). The same conversion and fields as the SDK's own listing (test/api/mcp-list.test.ts
 * compares the two).
 */
let toolList: ListToolsResult | undefined;
export function listOfTools(): ListToolsResult {
  toolList ??= {
    tools: REGISTRATIONS.map(({ tool, config }) => ({
      name: tool.name,
      title: config.title,
      description: config.description,
      inputSchema: toJsonSchemaCompat(config.inputSchema, { strictUnions: true, pipeStrategy: "input" }),
      annotations: config.annotations,
      execution: { taskSupport: "forbidden" },
      outputSchema: toJsonSchemaCompat(config.outputSchema, { strictUnions: true, pipeStrategy: "output" }),
    })) as ListToolsResult["tools"],
  };
  return toolList;
}

/** The tools on `server`, bound to one caller (`call`): the SDK's own registration, dispatch and validation. */
export function registerTools(server: McpServer, call: ToolCall, requestId?: string): void {
  for (const { tool, config } of REGISTRATIONS) {
    server.registerTool(tool.name, config, async (args: unknown) => runTool(tool, args, call, requestId));
  }
}

export function createMcpServer(deps: ApiDeps, context: ApiContext, requestId?: string): McpServer {
  const server = new McpServer(
    { name: "helm-status", version: "0.1.0" },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: NO_ELICITATION,
    },
  );
  registerTools(server, { deps, context }, requestId);
  // Replaces the SDK's listing (registered by registerTool) with the one converted once per process.
  server.server.setRequestHandler(ListToolsRequestSchema, listOfTools);
  return server;
}

async function runTool(tool: ToolDefinition, args: unknown, call: ToolCall, requestId?: string) {
  try {
    const answer = await tool.run(args as never, call);
    return { content: [{ type: "text", text: answer.text }], structuredContent: answer.structured } as CallToolResult;
  } catch (error) {
    return toolError(tool.name, error, call, requestId);
  }
}

/** A failure as the API would answer it (code and public message), logged as the HTTP stack logs a request's. */
function toolError(name: string, error: unknown, { deps }: ToolCall, requestId?: string): CallToolResult {
  const http = toHttpError(error, requestId);
  const { code, message } = (JSON.parse(String(http.body)) as HttpErrorBody).error;
  const failed = (http.statusCode ?? 500) >= 500;
  const detail = error instanceof Error ? { name: error.name, code: (error as { code?: unknown }).code } : {};
  if (failed) {
    deps.logger.error("tool failed", { tool: name, ...detail, reason: (error as Error)?.message });
  } else {
    deps.logger.info("tool refused", { tool: name, errorCode: code, reason: (error as Error)?.message });
  }
  const quote = failed && requestId ? ` (request id ${requestId})` : "";
  return { isError: true, content: [{ type: "text", text: `${code}: ${message}${quote}` }] };
}
