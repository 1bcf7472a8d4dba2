import { defineRoute, type RouteDefinition } from "../../_shared/http/route.ts";
import openapi from "../openapi.json" with { type: "json" };
import { onlyKnownQuery } from "../params.ts";
import { json } from "../respond.ts";
import type { ApiDeps } from "../types.ts";

/** Routes about the service itself: health, its contract, and the clusters it may reach. */
export function metaRoutes(deps: ApiDeps): RouteDefinition[] {
  return [
    // Liveness only: it must not call DynamoDB or EKS, or a dependency outage would look like a dead function.
    defineRoute("GET", "/healthz", async (event) => {
      onlyKnownQuery(event.queryStringParameters, []);
      return json({ status: "ok", time: deps.clock.now().toISOString() }, 200, { "cache-control": "no-store" });
    }),
    defineRoute("GET", "/openapi.json", async (event) => {
      onlyKnownQuery(event.queryStringParameters, []);
      return json(openapi);
    }),
    // Names and regions only: role ARNs, external ids and endpoints stay inside the function.
    defineRoute("GET", "/clusters", async (event) => {
      onlyKnownQuery(event.queryStringParameters, []);
      const clusters = deps.clusters.list().map(({ name, region }) => ({ name, region }));
      return json({ clusters });
    }),
  ];
}
