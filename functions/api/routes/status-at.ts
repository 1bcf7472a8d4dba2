/**
 * GET .../status?at=TIME: the status as the audits saw it then (the covering snapshot's text, first line naming
 * it; ?output=json|yaml: the snapshot's document with the text); ?at=A&against=B: the diff of the two snapshots.
 * No cluster is read. The same URL as the live status (routes/status.ts picks this route when the query has
 * `at` or `against`), its own use case (shared/usecases/status-at.ts).
 */
import { ValidationError } from "../../../shared/errors.ts";
import { diffAt, statusAt, statusAtDocument, statusAtText } from "../../../shared/usecases/status-at.ts";
import type { RouteDefinition } from "../../_shared/http/route.ts";
import { chooseOutput, MEDIA_TYPES } from "../negotiation.ts";
import { structured, text } from "../respond.ts";
import type { ApiDeps, ApiEvent } from "../types.ts";
import { historyDeps } from "./history.ts";
import { releaseRoute } from "./releases.ts";

/** The query that asks for the history instead of the cluster. */
export const asksForHistory = (query: ApiEvent["queryStringParameters"]): boolean =>
  query?.at !== undefined || query?.against !== undefined;

/** The status URL's query, for both of its routes: a 400 for an unknown parameter names the same list. */
export const STATUS_QUERY = ["revision", "output", "drift", "at", "against"] as const;

export function statusAtRoute(deps: ApiDeps): RouteDefinition {
  return releaseRoute("/status", { query: STATUS_QUERY, content: true }, async ({ key, query, event, context }) => {
    if (query?.at === undefined) throw new ValidationError("against needs at (the time to compare)", "InvalidQuery");
    if (query.revision !== undefined || query.drift !== undefined) {
      throw new ValidationError("at reads the status history: it takes no revision or drift", "InvalidQuery");
    }
    const format = chooseOutput(query.output, event.headers?.accept, ["table", "json", "yaml"], "table");
    const history = historyDeps(deps, context);
    if (query.against !== undefined) {
      const diff = await diffAt(history, key, query.at, query.against);
      return format === "table" ? text(diff.diff, MEDIA_TYPES.table) : structured(diff, format as "json" | "yaml");
    }
    const result = await statusAt(history, key, query.at);
    if (format === "table") return text(statusAtText(result), MEDIA_TYPES.table);
    return structured(statusAtDocument(result), format as "json" | "yaml");
  });
}
