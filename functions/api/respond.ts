import { renderJson, renderStructured, type StructuredFormat } from "../../shared/render/index.ts";
import { MEDIA_TYPES } from "./negotiation.ts";
import type { ApiResult } from "./types.ts";

/**
 * Response shaping shared by the routes (success bodies only: errors belong to the error
 * middleware). Documents go through the one structured renderer (shared/render), so the API
 * and the CLI write the same bytes for the same data.
 */

export function json(body: unknown, statusCode = 200, headers: Record<string, string> = {}): ApiResult {
  return { statusCode, headers: { "content-type": MEDIA_TYPES.json, ...headers }, body: renderJson(body) };
}

export function text(body: string, contentType = MEDIA_TYPES.table, statusCode = 200): ApiResult {
  return { statusCode, headers: { "content-type": contentType }, body: body.endsWith("\n") ? body : `${body}\n` };
}

/** A structured value in the negotiated format (`table` callers render their own text). */
export function structured(body: unknown, format: StructuredFormat, statusCode = 200): ApiResult {
  return format === "yaml"
    ? text(renderStructured(body, "yaml"), MEDIA_TYPES.yaml, statusCode)
    : json(body, statusCode);
}
