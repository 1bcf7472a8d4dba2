/**
 * Status history routes (DynamoDB only, no cluster calls): a release's snapshots,
 * one snapshot (?output=table: the status text as it was), the diff of two, the
 * fleet's latest health, and audit runs. Thin: parse -> use case -> shape.
 */
import { ValidationError } from "../../../shared/errors.ts";
import { StoreUnavailableError } from "../../../shared/store/errors.ts";
import { DEFAULT_RELIABILITY_SETTINGS } from "../../../shared/usecases/reliability.ts";
import type { ScopeReliabilityDeps } from "../../../shared/usecases/reliability-scope.ts";
import {
  type AuditRunsDeps,
  detailOf,
  diffSnapshots,
  fleetHealth,
  getAudit,
  listAudits,
  listSnapshots,
  showSnapshot,
} from "../../../shared/usecases/snapshots.ts";
import { defineRoute, type RouteDefinition } from "../../_shared/http/route.ts";
import { chooseOutput, MEDIA_TYPES } from "../negotiation.ts";
import { onlyKnownQuery, optionalCursor, optionalLimit } from "../params.ts";
import { structured, text } from "../respond.ts";
import type { ApiContext, ApiDeps, ApiEvent } from "../types.ts";
import { audienceFor, scopeFor } from "../viewer.ts";
import { releaseRoute } from "./releases.ts";

/**
 * The history use cases' dependencies, in the caller's scope (the registry; on the dashboard's mount, narrowed
 * by the signed-in viewer's grants); a 502 when the snapshots table is not configured.
 */
export function historyDeps(deps: ApiDeps, context: ApiContext): ScopeReliabilityDeps & AuditRunsDeps {
  if (!deps.historyStores) {
    throw new StoreUnavailableError(
      "the snapshots table is not configured (SNAPSHOTS_TABLE)",
      "SnapshotsNotConfigured",
    );
  }
  return {
    snapshots: deps.historyStores.snapshots,
    auditRuns: deps.historyStores.auditRuns,
    rollups: deps.historyStores.rollups,
    releases: deps.store,
    clusters: scopeFor(deps, context),
    clock: deps.clock,
    settings: deps.history ?? DEFAULT_RELIABILITY_SETTINGS,
  };
}

export function historyRoutes(deps: ApiDeps): RouteDefinition[] {
  const history = (context: ApiContext) => historyDeps(deps, context);
  const documentFormat = (event: ApiEvent) =>
    chooseOutput(event.queryStringParameters?.output, event.headers?.accept, ["json", "yaml"], "json") as
      | "json"
      | "yaml";

  return [
    releaseRoute(
      "/snapshots",
      { query: ["since", "until", "limit", "cursor", "output"] },
      async ({ key, query, event, context }) => {
        const page = await listSnapshots(history(context), key, {
          since: query?.since,
          until: query?.until,
          limit: optionalLimit(query, "limit", 1000),
          cursor: optionalCursor(query),
        });
        return structured(page, documentFormat(event));
      },
    ),

    releaseRoute("/snapshots/{id}", { query: ["output"] }, async ({ key, query, event, context }) => {
      const format = chooseOutput(query?.output, event.headers?.accept, ["json", "yaml", "table"], "json");
      const snapshot = await showSnapshot(history(context), snapshotIdParam(event), key);
      if (format === "table") return text(snapshot.text ?? "", MEDIA_TYPES.table);
      return structured(detailOf(snapshot), format as "json" | "yaml");
    }),

    releaseRoute("/snapshots/{id}/diff", { query: ["against", "output"] }, async ({ key, query, event, context }) => {
      const format = chooseOutput(query?.output, event.headers?.accept, ["json", "yaml", "table"], "json");
      // Who made the revision it arrives at: the ARN only in the IAM-signed JSON (docs/who.md).
      const who = { attributions: deps.attributions, audience: audienceFor(context, format) };
      const result = await diffSnapshots({ ...history(context), ...who }, snapshotIdParam(event), query?.against, key);
      if (format === "table") return text(result.diff, MEDIA_TYPES.table);
      return structured(result, format as "json" | "yaml");
    }),

    defineRoute("GET", "/fleet/health", async (event, context) => {
      const query = event.queryStringParameters;
      onlyKnownQuery(query, ["health", "cluster", "limit", "cursor", "output"]);
      const page = await fleetHealth(history(context), {
        health: query?.health,
        cluster: query?.cluster,
        limit: optionalLimit(query, "limit", 1000),
        cursor: optionalCursor(query),
      });
      return structured(
        { releases: page.items, ...(page.cursor ? { cursor: page.cursor } : {}) },
        documentFormat(event),
      );
    }),

    defineRoute("GET", "/audits", async (event, context) => {
      const query = event.queryStringParameters;
      onlyKnownQuery(query, ["limit", "cursor", "output"]);
      const page = await listAudits(history(context), {
        limit: optionalLimit(query, "limit", 1000),
        cursor: optionalCursor(query),
      });
      return structured({ audits: page.items, ...(page.cursor ? { cursor: page.cursor } : {}) }, documentFormat(event));
    }),

    defineRoute("GET", "/audits/{runId}", async (event, context) => {
      onlyKnownQuery(event.queryStringParameters, ["output"]);
      const run = await getAudit(history(context), String(event.pathParameters?.runId ?? ""));
      return structured(run, documentFormat(event));
    }),
  ];
}

function snapshotIdParam(event: ApiEvent): string {
  const raw = event.pathParameters?.id ?? "";
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ValidationError(
      `snapshot id ${JSON.stringify(raw.slice(0, 80))} is not valid percent-encoding`,
      "InvalidSnapshotId",
    );
  }
}
