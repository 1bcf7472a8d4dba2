import {
  helmHistoryElements,
  helmListElements,
  renderHelmHistory,
  renderHelmListAs,
} from "../../../shared/render/tables/release-tables.ts";
import { helmList } from "../../../shared/usecases/helm-list.ts";
import { releaseHistory } from "../../../shared/usecases/history.ts";
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
  optionalLimit,
  releaseNameParam,
  revisionParam,
} from "../params.ts";
import { json, structured, text } from "../respond.ts";
import type { ApiContext, ApiDeps, ApiEvent } from "../types.ts";

const PAGE_MAX = 1000;

/** Reads of stored releases (DynamoDB only, no cluster calls): helm list, helm history, helm get manifest. */
export function releaseRoutes(deps: ApiDeps): RouteDefinition[] {
  const { store, clusters } = deps;

  const list = async (event: ApiEvent, context: ApiContext, withNamespace: boolean) => {
    const path = event.pathParameters;
    const cluster = clusterParam(path);
    const namespace = withNamespace ? namespaceParam(path) : undefined;
    const query = event.queryStringParameters;
    onlyKnownQuery(query, LIST_QUERY_PARAMS);
    const list = listQueryFrom(query);
    const format = chooseOutput(query?.output, event.headers?.accept, ["json", "yaml", "table"], "json");
    annotate(context, { cluster, sizeHint: "ask for a smaller page with ?max=" });
    const result = await helmList({ store, clusters }, { cluster, namespace, ...list.query });
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

    defineRoute("GET", "/clusters/{cluster}/namespaces/{namespace}/releases/{name}/history", async (event, context) => {
      const key = releaseKey(event);
      const query = event.queryStringParameters;
      onlyKnownQuery(query, ["max", "cursor", "output"]);
      const options = { max: optionalLimit(query, "max", PAGE_MAX), cursor: optionalCursor(query) };
      const format = chooseOutput(query?.output, event.headers?.accept, ["json", "yaml", "table"], "json");
      annotateRelease(context, key, {
        sizeHint: "ask for fewer revisions with ?max=",
      });
      // Metadata only: the use case never returns the user-supplied values.
      const page = await releaseHistory({ store, clusters }, key, options);
      if (format === "table") return text(renderHelmHistory(page.items));
      // The CLI's document (helm history -o json|yaml), wrapped with the cursor to older revisions.
      const history = helmHistoryElements(page.items);
      return structured({ history, ...(page.cursor ? { cursor: page.cursor } : {}) }, format);
    }),

    defineRoute(
      "GET",
      "/clusters/{cluster}/namespaces/{namespace}/releases/{name}/revisions/{revision}/manifest",
      async (event, context) => {
        const key = releaseKey(event, "content");
        const revision = revisionParam(event.pathParameters);
        const query = event.queryStringParameters;
        onlyKnownQuery(query, ["output"]);
        // The manifest is YAML text; JSON wraps it with its identity for programs.
        const format = chooseOutput(query?.output, event.headers?.accept, ["yaml", "json", "table"], "yaml");
        annotateRelease(context, key, {
          revision,
          sizeHint: "send Accept-Encoding: gzip (manifests compress well) or read it with the CLI",
        });
        // Secret values are redacted by the use case.
        const stored = await getManifest({ store, clusters }, key, revision);
        const manifest = stored.manifest;
        if (format === "json") return json({ ...key, revision: stored.revision, manifest });
        // helm get manifest prints it with Println: one more newline after the stored text.
        return text(`${manifest}\n`, format === "yaml" ? MEDIA_TYPES.yaml : MEDIA_TYPES.table);
      },
    ),
  ];
}

/** The release a path names; `content` routes (status, manifest) word a bad name as helm status / get do. */
export function releaseKey(event: ApiEvent, use: "history" | "content" = "history") {
  const path = event.pathParameters;
  const name = use === "content" ? contentReleaseNameParam(path) : releaseNameParam(path);
  return { cluster: clusterParam(path), namespace: namespaceParam(path), name };
}

type Annotations = Parameters<typeof annotate>[1];

/** A release route's log line and metrics: the cluster and `namespace/name` it read, and what else it learnt. */
export function annotateRelease(
  context: Parameters<typeof annotate>[0],
  key: { cluster: string; namespace: string; name: string },
  more: Annotations = {},
): void {
  annotate(context, { cluster: key.cluster, release: `${key.namespace}/${key.name}`, ...more });
}
