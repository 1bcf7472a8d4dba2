import type { ReleaseKey } from "../../../shared/release/model.ts";
import {
  helmHistoryElements,
  helmListElements,
  renderHelmHistory,
  renderHelmListAs,
} from "../../../shared/render/tables/release-tables.ts";
import { helmList } from "../../../shared/usecases/helm-list.ts";
import { HELM_HISTORY_MAX, releaseHistory } from "../../../shared/usecases/history.ts";
import { getManifest } from "../../../shared/usecases/manifest.ts";
import { annotate, defineRoute, type RouteDefinition } from "../../_shared/http/route.ts";
import { LIST_QUERY_PARAMS, listQueryFrom, nextListCursor } from "../list-query.ts";
import { chooseOutput, MEDIA_TYPES } from "../negotiation.ts";
import {
  clusterParam,
  contentReleaseNameParam,
  namespaceParam,
  onlyKnownQuery,
  optionalCursor,
  optionalFlag,
  optionalLimit,
  releaseNameParam,
  revisionParam,
} from "../params.ts";
import { json, structured, text } from "../respond.ts";
import type { ApiContext, ApiDeps, ApiEvent, ApiResult } from "../types.ts";
import { audienceFor, scopeFor } from "../viewer.ts";

const PAGE_MAX = 1000;

/** Reads of stored releases (DynamoDB only, no cluster calls): helm list, helm history, helm get manifest. */
export function releaseRoutes(deps: ApiDeps): RouteDefinition[] {
  const { store } = deps;

  const list = async (event: ApiEvent, context: ApiContext, withNamespace: boolean) => {
    const path = event.pathParameters;
    const cluster = clusterParam(path);
    const namespace = withNamespace ? namespaceParam(path) : undefined;
    const query = event.queryStringParameters;
    onlyKnownQuery(query, LIST_QUERY_PARAMS);
    const list = listQueryFrom(query);
    const format = chooseOutput(query?.output, event.headers?.accept, ["json", "yaml", "table"], "json");
    annotate(context, { cluster, sizeHint: "ask for a smaller page with ?max=" });
    const result = await helmList({ store, clusters: scopeFor(deps, context) }, { cluster, namespace, ...list.query });
    if (format === "table") {
      return text(renderHelmListAs(result.releases, "table", { short: list.short, timeFormat: list.timeFormat }));
    }
    // The CLI's document (helm list -o json|yaml), wrapped with the cursor of the next page.
    const releases = list.short
      ? result.releases.map((r) => r.name)
      : helmListElements(result.releases, list.timeFormat);
    const cursor = result.nextOffset === undefined ? {} : { cursor: nextListCursor(result.nextOffset) };
    return structured({ releases, ...cursor }, format);
  };

  return [
    defineRoute("GET", "/clusters/{cluster}/releases", (event, context) => list(event, context, false)),
    defineRoute("GET", "/clusters/{cluster}/namespaces/{namespace}/releases", (event, context) =>
      list(event, context, true),
    ),

    releaseRoute("/history", { query: ["max", "cursor", "output", "who"] }, async ({ key, query, event, context }) => {
      // helm history's default --max (256), not the store's page size: the table carries no cursor to say "more".
      const max = optionalLimit(query, "max", PAGE_MAX) ?? HELM_HISTORY_MAX;
      const who = optionalFlag(query, "who", false);
      const format = chooseOutput(query?.output, event.headers?.accept, ["json", "yaml", "table"], "json");
      // The IAM-signed JSON may carry an identity's ARN and account id; a table or a browser never does.
      const audience = audienceFor(context, format);
      const options = { max, cursor: optionalCursor(query), audience };
      annotate(context, { sizeHint: "ask for fewer revisions with ?max=" });
      // Metadata only: the use case never returns the user-supplied values.
      const page = await releaseHistory(
        { store, clusters: scopeFor(deps, context), attributions: deps.attributions, logger: deps.logger },
        key,
        options,
      );
      if (format === "table") return text(renderHelmHistory(page.items, { who, auditLogging: page.auditLogging }));
      // The CLI's document (helm history -o json|yaml), wrapped with the cursor to older revisions.
      const history = helmHistoryElements(page.items);
      return structured(
        {
          history,
          ...(page.cursor ? { cursor: page.cursor } : {}),
          ...(page.auditLogging ? { auditLogging: page.auditLogging } : {}),
        },
        format,
      );
    }),

    releaseRoute(
      "/revisions/{revision}/manifest",
      { query: ["output"], content: true },
      async ({ key, query, event, context }) => {
        const revision = revisionParam(event.pathParameters);
        // The manifest is YAML text; JSON wraps it with its identity for programs.
        const format = chooseOutput(query?.output, event.headers?.accept, ["yaml", "json", "table"], "yaml");
        annotate(context, {
          revision,
          sizeHint: "send Accept-Encoding: gzip (manifests compress well) or read it with the CLI",
        });
        // Secret values are redacted by the use case.
        const stored = await getManifest({ store, clusters: scopeFor(deps, context) }, key, revision);
        const manifest = stored.manifest;
        if (format === "json") return json({ ...key, revision: stored.revision, manifest });
        // helm get manifest prints it with Println: one more newline after the stored text.
        return text(`${manifest}\n`, format === "yaml" ? MEDIA_TYPES.yaml : MEDIA_TYPES.table);
      },
    ),
  ];
}

/** One release's path; its routes add a suffix (`/status`, `/history`, `/snapshots/{id}`, …). */
export const RELEASE_PATH = "/clusters/{cluster}/namespaces/{namespace}/releases/{name}";

/** What a release route's handler is given. */
export interface ReleaseRequest {
  key: ReleaseKey;
  query: ApiEvent["queryStringParameters"];
  event: ApiEvent;
  context: ApiContext;
}

/**
 * A GET on one release (`RELEASE_PATH` + `suffix`), the same first steps for every one: the release the path
 * names, the query checked against `query` (400 naming an unknown parameter), the release on the request's log
 * line; then `fn`. `content` routes (status, manifest) word a bad release name as helm status / get do.
 */
export function releaseRoute(
  suffix: string,
  options: { query: readonly string[]; content?: boolean },
  fn: (request: ReleaseRequest) => Promise<ApiResult>,
): RouteDefinition {
  return defineRoute("GET", `${RELEASE_PATH}${suffix}`, async (event, context) => {
    const key = releaseKey(event, options.content ? "content" : "history");
    const query = event.queryStringParameters;
    onlyKnownQuery(query, options.query);
    annotateRelease(context, key);
    return fn({ key, query, event, context });
  });
}

function releaseKey(event: ApiEvent, use: "history" | "content"): ReleaseKey {
  const path = event.pathParameters;
  const name = use === "content" ? contentReleaseNameParam(path) : releaseNameParam(path);
  return { cluster: clusterParam(path), namespace: namespaceParam(path), name };
}

/** A release route's log line and metrics: the cluster and `namespace/name` it read. */
function annotateRelease(context: ApiContext, key: ReleaseKey): void {
  annotate(context, { cluster: key.cluster, release: `${key.namespace}/${key.name}` });
}
