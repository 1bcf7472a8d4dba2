/**
 * One MCP tool: a use case the API already serves, with its arguments (inputs.ts), its answer's schema, and how
 * it reads: `run` parses like the route, calls the same use case in the caller's scope, and returns the text the
 * route's `?output=table` prints (Helm's text where one exists; the JSON document otherwise) with the document its
 * JSON output holds. Every tool is a read: nothing here can write (docs/mcp.md).
 */
import type * as z from "zod";
import { renderJson } from "../../../shared/render/index.ts";
import type { ApiContext, ApiDeps } from "../types.ts";

/** What a tool reads with: the API's dependencies and the request's context (the viewer's grants, the deadline). */
export interface ToolCall {
  deps: ApiDeps;
  context: ApiContext;
}

export interface ToolAnswer {
  /** What a person reads: the route's text form. */
  text: string;
  /** The route's JSON document, as plain JSON (structuredContent). */
  structured: Record<string, unknown>;
}

export interface ToolDefinition<Shape extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: Shape;
  output: z.ZodObject;
  run(args: z.infer<z.ZodObject<Shape>>, call: ToolCall): Promise<ToolAnswer>;
}

/** A tool with its arguments' types inferred from `input` (the list of tools holds them type-erased). */
export function defineTool<Shape extends z.ZodRawShape>(tool: ToolDefinition<Shape>): ToolDefinition {
  return tool as unknown as ToolDefinition;
}

/** A document as the JSON the route sends (dates as strings, no undefined): structuredContent is plain JSON. */
export function plain(document: unknown): Record<string, unknown> {
  return JSON.parse(renderJson(document)) as Record<string, unknown>;
}

/** A tool whose route has no text form: the text is its JSON document (MCP's advice for structured results). */
export function documentAnswer(document: unknown): ToolAnswer {
  const structured = plain(document);
  return { text: renderJson(structured), structured };
}
