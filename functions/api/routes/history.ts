/**
 * Status history routes (DynamoDB only, no cluster calls): a release's snapshots,
 * one snapshot (?output=table: the status text as it was), the diff of two, the
 * fleet's latest health, and audit runs. Thin: parse -> use case -> shape.
 */
import { ValidationError } from "../../../shared/errors.ts";
import { StoreUnavailableError } from "../../../shared/store/errors.ts";
import type { ReliabilityDeps } from "../../../shared/usecases/reliability.ts";
import {
  detailOf,
  diffSnapshots,
  fleetHealth,
  getAudit,
  type HistoryDeps,
  listAudits,
  listSnapshots,
  showSnapshot,
} from "../../../shared/usecases/snapshots.ts";
import { defineRoute, type RouteDefinition } from "../../_shared/http/route.ts";
import { chooseOutput, MEDIA_TYPES } from "../negotiation.ts";
import { onlyKnownQuery, optionalCursor, optionalLimit } from "../params.ts";
import { structured, text } from "../respond.ts";
import type { ApiDeps, ApiEvent } from "../types.ts";
import { annotateRelease, releaseKey } from "./releases.ts";

const SNAPSHOTS = "/clusters/{cluster}/namespaces/{namespace}/releases/{name}/snapshots";

/** The history use cases' dependencies; a 502 when the snapshots table is not configured. */
export function historyDeps(deps: ApiDeps): ReliabilityDeps {
  if (!deps.snapshots) {
    throw new StoreUnavailableError(
      "the snapshots table is not configured (SNAPSHOTS_TABLE)",
      "SnapshotsNotConfigured",
    );
  }
  return {
    snapshots: deps.snapshots,
    releases: deps.store,
    clusters: deps.clusters,
    clock: deps.clock,
    settings: deps.history ?? { auditIntervalSeconds: 300, retentionDays: 90 },
  };
}

export function historyRoutes(deps: ApiDeps): RouteDefinition[] {
  const history = (): HistoryDeps => historyDeps(deps);
  const documentFormat = (event: ApiEvent) =>
    chooseOutput(event.queryStringParameters?.output, event.headers?.accept, ["json", "yaml"], "json") as
      | "json"
      | "yaml";

  return [
    defineRoute("GET", SNAPSHOTS, async (event, context) => {
      const key = releaseKey(event);
      const query = event.queryStringParameters;
      onlyKnownQuery(query, ["since", "until", "limit", "cursor", "output"]);
      annotateRelease(context, key);
      const page = await listSnapshots(history(), key, {
        since: query?.since,
        until: query?.until,
        limit: optionalLimit(query, "limit", 1000),
        cursor: optionalCursor(query),
      });
      return structured(page, documentFormat(event));
    }),

    defineRoute("GET", `${SNAPSHOTS}/{id}`, async (event, context) => {
      const key = releaseKey(event);
      const query = event.queryStringParameters;
      onlyKnownQuery(query, ["output"]);
      const format = chooseOutput(query?.output, event.headers?.accept, ["json", "yaml", "table"], "json");
      annotateRelease(context, key);
      const snapshot = await showSnapshot(history(), snapshotIdParam(event), key);
      if (format === "table") return text(snapshot.text ?? "", MEDIA_TYPES.table);
      return structured(detailOf(snapshot), format as "json" | "yaml");
    }),

    defineRoute("GET", `${SNAPSHOTS}/{id}/diff`, async (event, context) => {
      const key = releaseKey(event);
      const query = event.queryStringParameters;
      onlyKnownQuery(query, ["against", "output"]);
      const format = chooseOutput(query?.output, event.headers?.accept, ["json", "yaml", "table"], "json");
      annotateRelease(context, key);
      const result = await diffSnapshots(history(), snapshotIdParam(event), query?.against, key);
      if (format === "table") return text(result.diff, MEDIA_TYPES.table);
      return structured(result, format as "json" | "yaml");
    }),

    defineRoute("GET", "/fleet/health", async (event) => {
      const query = event.queryStringParameters;
      onlyKnownQuery(query, ["health", "cluster", "limit", "cursor", "output"]);
      const page = await fleetHealth(history(), {
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

    defineRoute("GET", "/audits", async (event) => {
      const query = event.queryStringParameters;
      onlyKnownQuery(query, ["limit", "cursor", "output"]);
      const page = await listAudits(history(), {
        limit: optionalLimit(query, "limit", 1000),
        cursor: optionalCursor(query),
      });
      return structured({ audits: page.items, ...(page.cursor ? { cursor: page.cursor } : {}) }, documentFormat(event));
    }),

    defineRoute("GET", "/audits/{runId}", async (event) => {
      onlyKnownQuery(event.queryStringParameters, ["output"]);
      const run = await getAudit(history(), String(event.pathParameters?.runId ?? ""));
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
