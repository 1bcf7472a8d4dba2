/**
 * GET .../status?at=TIME: the status as the audits saw it then (the covering snapshot's text, first line naming
 * it; ?output=json|yaml: the snapshot's document with the text); ?at=A&against=B: the diff of the two snapshots.
 * No cluster is read.
 */
import { ValidationError } from "../../../shared/errors.ts";
import type { ReleaseKey } from "../../../shared/release/model.ts";
import { diffAt, statusAt, statusAtDocument, statusAtText } from "../../../shared/usecases/status-at.ts";
import { chooseOutput, MEDIA_TYPES } from "../negotiation.ts";
import { structured, text } from "../respond.ts";
import type { ApiDeps, ApiEvent, ApiResult } from "../types.ts";
import { historyDeps } from "./history.ts";

export async function statusAsItWas(deps: ApiDeps, event: ApiEvent, key: ReleaseKey): Promise<ApiResult> {
  const query = event.queryStringParameters ?? {};
  if (query.at === undefined) throw new ValidationError("against needs at (the time to compare)", "InvalidQuery");
  if (query.revision !== undefined || query.drift !== undefined) {
    throw new ValidationError("at reads the status history: it takes no revision or drift", "InvalidQuery");
  }
  const format = chooseOutput(query.output, event.headers?.accept, ["table", "json", "yaml"], "table");
  const history = historyDeps(deps);
  if (query.against !== undefined) {
    const diff = await diffAt(history, key, query.at, query.against);
    return format === "table" ? text(diff.diff, MEDIA_TYPES.table) : structured(diff, format as "json" | "yaml");
  }
  const result = await statusAt(history, key, query.at);
  if (format === "table") return text(statusAtText(result), MEDIA_TYPES.table);
  return structured(statusAtDocument(result), format as "json" | "yaml");
}
