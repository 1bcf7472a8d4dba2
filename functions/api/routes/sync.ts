import { ValidationError } from "../../../shared/errors.ts";
import { StoreUnavailableError } from "../../../shared/store/errors.ts";
import type { SyncStateStore } from "../../../shared/store/sync-state.ts";
import { lastSync, syncCluster } from "../../../shared/usecases/sync.ts";
import { annotate, defineRoute, type RouteDefinition } from "../../_shared/http/route.ts";
import { deadlineFrom } from "../../_shared/runtime.ts";
import { clusterParam, onlyKnownQuery } from "../params.ts";
import { json } from "../respond.ts";
import type { ApiDeps } from "../types.ts";
import { scopeFor } from "../viewer.ts";

/**
 * POST /clusters/{cluster}/sync: one sync run (docs/sync.md) within the Lambda's time; 200 when every LIST
 * reached its end, 207 when the time ran out first (the summary says so; the next run continues from the saved
 * cursor), 422 when objects failed (the summary names them), 409 while another sync of the cluster runs.
 * GET /clusters/{cluster}/sync: the last run, its summary, and when the cluster was last fully synced.
 */
export function syncRoutes(deps: ApiDeps): RouteDefinition[] {
  const { logger } = deps;
  const syncState = (): SyncStateStore => {
    if (!deps.syncState) throw new StoreUnavailableError("the sync state store is not configured", "SyncNotConfigured");
    return deps.syncState;
  };
  const policy = (cluster: string) => deps.syncPolicy?.(cluster);
  return [
    defineRoute("POST", "/clusters/{cluster}/sync", async (event, context) => {
      const cluster = clusterParam(event.pathParameters);
      onlyKnownQuery(event.queryStringParameters, ["namespace"]);
      annotate(context, { cluster });
      const namespaces = namespacesParam(event.queryStringParameters?.namespace);
      // Writes already running when the deadline passes still need their time.
      const deadline = deadlineFrom(context, deps.settings.deadlineMarginMs + SYNC_WRITE_MARGIN_MS, {
        now: deps.kube.clock.now().getTime(),
      });
      const summary = await syncCluster(
        {
          store: deps.store,
          syncState: syncState(),
          kube: deps.kube,
          scope: deps.clusters,
          logger,
          // Its new revisions are attributed like the scheduled sync's (docs/who.md); the sync worker looks them up.
          ...(deps.settings.whoLookup && deps.attributions ? { attributions: deps.attributions } : {}),
        },
        { cluster, namespaces, policy: policy(cluster), deadline },
      );
      annotate(context, { partial: !summary.complete });
      return json(summary, summary.failed > 0 ? 422 : summary.complete ? 200 : 207);
    }),
    defineRoute("GET", "/clusters/{cluster}/sync", async (event, context) => {
      const cluster = clusterParam(event.pathParameters);
      onlyKnownQuery(event.queryStringParameters, []);
      annotate(context, { cluster });
      const { lastRun, lastCompleteAt, cursor } = await lastSync(
        { syncState: syncState(), scope: scopeFor(deps, context) },
        { cluster },
      );
      return json({
        cluster,
        enabled: policy(cluster)?.enabled ?? true,
        lastRun: lastRun ?? null,
        lastCompleteAt: lastCompleteAt ?? null,
        resumable: cursor !== undefined,
      });
    }),
  ];
}

const SYNC_WRITE_MARGIN_MS = 2_000;

/** `?namespace=a,b`: only these namespaces (each validated by the use case). */
function namespacesParam(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const namespaces = value.split(",").map((n) => n.trim());
  if (namespaces.some((n) => n === "")) {
    throw new ValidationError(
      `invalid namespace query "${value}": a comma-separated list of namespaces`,
      "InvalidQuery",
    );
  }
  return namespaces;
}
