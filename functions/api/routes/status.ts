import { renderStatus } from "../../../shared/render/status/formats.ts";
import { releaseStatus } from "../../../shared/usecases/status.ts";
import { annotate, type RouteDefinition, routeByQuery } from "../../_shared/http/route.ts";
import { deadlineFrom } from "../../_shared/runtime.ts";
import { chooseOutput, MEDIA_TYPES } from "../negotiation.ts";
import { optionalDrift } from "../params.ts";
import { text } from "../respond.ts";
import type { ApiDeps } from "../types.ts";
import { audienceFor, scopeFor } from "../viewer.ts";
import { releaseRoute } from "./releases.ts";
import { asksForHistory, STATUS_QUERY, statusAtRoute } from "./status-at.ts";

/** GET .../releases/{name}/status: the live status, or with `?at=` / `?against=` the history's (status-at.ts). */
export function statusRoutes(deps: ApiDeps): RouteDefinition[] {
  return [routeByQuery(asksForHistory, statusAtRoute(deps), liveStatusRoute(deps))];
}

/**
 * The live status. The deadline is what the Lambda has left minus a margin, so a slow cluster yields a partial
 * report ("not read in time") with a 200 instead of API Gateway's bare 504.
 */
function liveStatusRoute(deps: ApiDeps): RouteDefinition {
  const { logger } = deps;
  return releaseRoute("/status", { query: STATUS_QUERY, content: true }, async ({ key, query, event, context }) => {
    const drift = optionalDrift(query);
    const format = chooseOutput(query?.output, event.headers?.accept, ["table", "json", "yaml"], "table");
    // The IAM-signed JSON may carry a writer's ARN and account id; a table or a browser never does.
    const audience = audienceFor(context, format);
    const report = await releaseStatus(
      { store: deps.store, kube: deps.kube, logger, scope: scopeFor(deps, context), attributions: deps.attributions },
      {
        ...key,
        // As given: the use case's `revisionOrLatest` decides (0 or less: the latest; else a 400 in Helm's words).
        revision: query?.revision,
        audience,
        deadline: deadlineFrom(context, deps.settings.deadlineMarginMs, { now: deps.kube.clock.now().getTime() }),
        drift,
        logExcerpts: deps.settings.logExcerpts,
      },
    );
    annotate(context, {
      revision: report.release.version,
      resourceCount: report.resources.length + report.missing.length,
      partial: !report.complete,
      sizeHint: "use ?output=table (the text form is far smaller) or send Accept-Encoding: gzip",
    });
    return text(renderStatus(report, format), MEDIA_TYPES[format]);
  });
}
