import { releaseHistory } from "../../../shared/usecases/history.ts";
import { listReleases } from "../../../shared/usecases/list.ts";
import { getManifest } from "../../../shared/usecases/manifest.ts";
import { chooseOutput, MEDIA_TYPES } from "../negotiation.ts";
import {
  clusterParam,
  namespaceParam,
  onlyKnownQuery,
  optionalCursor,
  optionalLimit,
  optionalStatus,
  releaseNameParam,
  revisionParam,
} from "../params.ts";
import { json, structured, text } from "../respond.ts";
import { defineRoute, type RouteDefinition } from "../route.ts";
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
    onlyKnownQuery(query, ["status", "limit", "cursor", "output"]);
    const filter = {
      status: optionalStatus(query),
      limit: optionalLimit(query, "limit", PAGE_MAX),
      cursor: optionalCursor(query),
    };
    const format = chooseOutput(query?.output, event.headers?.accept, ["json", "yaml"], "json");
    annotate(context, { cluster, sizeHint: "ask for a smaller page with ?limit=" });
    const page = await listReleases({ store, clusters }, { cluster, namespace, ...filter });
    return structured(
      { releases: page.items, ...(page.cursor ? { cursor: page.cursor } : {}) },
      format as "json" | "yaml",
    );
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
      const format = chooseOutput(query?.output, event.headers?.accept, ["json", "yaml"], "json");
      annotate(context, {
        cluster: key.cluster,
        release: `${key.namespace}/${key.name}`,
        sizeHint: "ask for fewer revisions with ?max=",
      });
      // Metadata only: the use case never returns the user-supplied values.
      const page = await releaseHistory({ store, clusters }, key, options);
      return structured(
        { history: page.items, ...(page.cursor ? { cursor: page.cursor } : {}) },
        format as "json" | "yaml",
      );
    }),

    defineRoute(
      "GET",
      "/clusters/{cluster}/namespaces/{namespace}/releases/{name}/revisions/{revision}/manifest",
      async (event, context) => {
        const key = releaseKey(event);
        const revision = revisionParam(event.pathParameters);
        const query = event.queryStringParameters;
        onlyKnownQuery(query, ["output"]);
        // The manifest is YAML text; JSON wraps it with its identity for programs.
        const format = chooseOutput(query?.output, event.headers?.accept, ["yaml", "json", "table"], "yaml");
        annotate(context, {
          cluster: key.cluster,
          release: `${key.namespace}/${key.name}`,
          revision,
          sizeHint: "send Accept-Encoding: gzip (manifests compress well) or read it with the CLI",
        });
        // Secret values are redacted by the use case.
        const stored = await getManifest({ store, clusters }, key, revision);
        const manifest = stored.manifest;
        if (format === "json") return json({ ...key, revision: stored.revision, manifest });
        return text(manifest, format === "yaml" ? MEDIA_TYPES.yaml : MEDIA_TYPES.table);
      },
    ),
  ];
}

export function releaseKey(event: ApiEvent) {
  const path = event.pathParameters;
  return { cluster: clusterParam(path), namespace: namespaceParam(path), name: releaseNameParam(path) };
}

export function annotate(context: ApiContext, values: NonNullable<ApiContext["annotations"]>): void {
  context.annotations = { ...context.annotations, ...values };
}
