import { stringify } from "yaml";
import { MEDIA_TYPES, type OutputFormat } from "./negotiation.ts";
import type { ApiResult } from "./types.ts";

/** Response shaping shared by the routes (success bodies only: errors belong to the error middleware). */

export function json(body: unknown, statusCode = 200, headers: Record<string, string> = {}): ApiResult {
  return {
    statusCode,
    headers: { "content-type": MEDIA_TYPES.json, ...headers },
    body: `${JSON.stringify(body, null, 2)}\n`,
  };
}

export function text(body: string, contentType = MEDIA_TYPES.table, statusCode = 200): ApiResult {
  return { statusCode, headers: { "content-type": contentType }, body: body.endsWith("\n") ? body : `${body}\n` };
}

/** A structured value in the negotiated format (`table` callers render their own text). */
export function structured(body: unknown, format: Exclude<OutputFormat, "table">, statusCode = 200): ApiResult {
  return format === "yaml" ? text(stringify(body), MEDIA_TYPES.yaml, statusCode) : json(body, statusCode);
}
