/**
 * A status in one of `helm status -o`'s formats: `table` (Helm's text, text.ts), or the status document
 * (json.ts: Helm's release shape plus our documented additions) as `json` or `yaml`. The API's status route and
 * the CLI's `status` answer through it.
 */
import type { StatusReport } from "../../status/report.ts";
import type { OutputFormat } from "../formats.ts";
import { renderStatusDocument } from "./json.ts";
import { renderStatusText } from "./text.ts";

export function renderStatus(report: StatusReport, format: OutputFormat): string {
  return format === "table" ? renderStatusText(report) : renderStatusDocument(report, format);
}
