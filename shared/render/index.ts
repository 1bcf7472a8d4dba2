/**
 * One structured renderer for every adapter (CLI, API, chatops, audits): a document is
 * written as JSON or YAML exactly as Helm writes it (json.ts, yaml.ts), so the same data
 * gives the same bytes whoever asks.
 */
import type { StructuredFormat } from "./formats.ts";
import { renderJson } from "./json.ts";
import { renderYaml } from "./yaml.ts";

export {
  isOutputFormat,
  OUTPUT_FORMATS,
  type OutputFormat,
  parseOutputFormat,
  type StructuredFormat,
} from "./formats.ts";
export { renderJson } from "./json.ts";
export { renderYaml } from "./yaml.ts";

export function renderStructured(value: unknown, format: StructuredFormat): string {
  return format === "json" ? renderJson(value) : renderYaml(value);
}
