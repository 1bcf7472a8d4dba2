/**
 * Reliability routes (DynamoDB only): a release's report and the fleet's (or a cluster's, namespace's, chart's),
 * from the same use cases as the CLI and chat. Thin: parse -> use case -> shape; ?output=table is the CLI's text.
 */

import { reliabilityOfRelease } from "../../../shared/usecases/reliability.ts";
import { reliabilityOfScope } from "../../../shared/usecases/reliability-scope.ts";
import { releaseReliabilityText, scopeReliabilityText } from "../../../shared/usecases/reliability-text.ts";
import { defineRoute, type RouteDefinition } from "../../_shared/http/route.ts";
import { chooseOutput, MEDIA_TYPES } from "../negotiation.ts";
import { onlyKnownQuery } from "../params.ts";
import { structured, text } from "../respond.ts";
import type { ApiDeps, ApiEvent } from "../types.ts";
import { historyDeps } from "./history.ts";
import { releaseRoute } from "./releases.ts";

const format = (event: ApiEvent) =>
  chooseOutput(event.queryStringParameters?.output, event.headers?.accept, ["json", "yaml", "table"], "json");

export function reliabilityRoutes(deps: ApiDeps): RouteDefinition[] {
  return [
    releaseRoute("/reliability", { query: ["since", "until", "output"] }, async ({ key, query, event, context }) => {
      const output = format(event);
      const report = await reliabilityOfRelease(historyDeps(deps, context), key, {
        since: query?.since,
        until: query?.until,
      });
      if (output === "table") return text(releaseReliabilityText(report), MEDIA_TYPES.table);
      return structured(report, output as "json" | "yaml");
    }),

    defineRoute("GET", "/fleet/reliability", async (event, context) => {
      const query = event.queryStringParameters;
      onlyKnownQuery(query, ["since", "until", "cluster", "namespace", "chart", "output"]);
      const output = format(event);
      const report = await reliabilityOfScope(historyDeps(deps, context), {
        since: query?.since,
        until: query?.until,
        cluster: query?.cluster,
        namespace: query?.namespace,
        chart: query?.chart,
      });
      if (output === "table") return text(scopeReliabilityText(report), MEDIA_TYPES.table);
      return structured(report, output as "json" | "yaml");
    }),
  ];
}
