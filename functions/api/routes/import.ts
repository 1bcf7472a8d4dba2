import { InvalidImportDocumentError, parseImportDocument } from "../../../shared/release/import-document.ts";
import { importReleases } from "../../../shared/usecases/import.ts";
import { requestBody } from "../../_shared/http/body.ts";
import { InvalidBodyError, UnsupportedMediaTypeError } from "../../_shared/http/errors.ts";
import { annotate, defineRoute, type RouteDefinition } from "../../_shared/http/route.ts";
import { deadlineFrom } from "../../_shared/runtime.ts";
import { clusterParam, onlyKnownQuery } from "../params.ts";
import { json } from "../respond.ts";
import type { ApiDeps, ApiEvent } from "../types.ts";

/**
 * POST /clusters/{cluster}/releases/import: what `import` reads (a Helm release
 * Secret/ConfigMap or a List of them), so CI can push a revision right after
 * `helm upgrade`. 200 when every object was imported or already there, 422 when
 * any failed (so `curl --fail` fails the pipeline), 207 when the Lambda's time
 * ran out before every object was started (the summary says how many were not;
 * sending the same body again continues), with the per-object summary each time.
 * The body is never logged: it carries the release's values.
 */
export function importRoutes(deps: ApiDeps): RouteDefinition[] {
  const { logger } = deps;
  return [
    defineRoute("POST", "/clusters/{cluster}/releases/import", async (event, context) => {
      const cluster = clusterParam(event.pathParameters);
      onlyKnownQuery(event.queryStringParameters, []);
      annotate(context, { cluster });
      const document = parseBody(event, deps.settings.maxBodyBytes);
      // No object is started after this: the margin, plus what a write already running may still need.
      const deadline = deadlineFrom(context, deps.settings.deadlineMarginMs + IMPORT_WRITE_MARGIN_MS);
      const summary = await importReleases(
        // deps.attributions exists only with WHO_LOOKUP on (functions/api/deps.ts): its revisions are then attributed.
        {
          store: deps.store,
          clusters: deps.clusters,
          logger,
          ...(deps.attributions ? { attributions: deps.attributions } : {}),
        },
        { cluster, document, deadline },
      );
      return json(summary, summary.failed > 0 ? 422 : summary.complete ? 200 : 207);
    }),
  ];
}

/** Time a write already running may still need when the last object is started. */
const IMPORT_WRITE_MARGIN_MS = 3_000;

/**
 * The body's syntax by its Content-Type: JSON (`application/json`, `+json`) or YAML (`application/yaml`,
 * `application/x-yaml`, `text/yaml`); none is JSON (SigV4 callers such as the CLI's `push` send
 * application/json). A type a browser may send cross-site without asking first (text/plain, a form) is a 415:
 * with `npm start` holding AWS keys, a page must not be able to import into it (issue #38 item 5).
 */
function bodySyntax(header: string | undefined): "json" | "yaml" {
  const contentType = (header ?? "application/json").split(";")[0].trim().toLowerCase();
  if (contentType === "application/json" || /^application\/[\w.-]+\+json$/.test(contentType)) return "json";
  if (["application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"].includes(contentType)) return "yaml";
  throw new UnsupportedMediaTypeError(
    `content-type ${JSON.stringify(contentType.slice(0, 80))} is not one the import reads: send application/json or application/yaml`,
  );
}

function parseBody(event: ApiEvent, maxBytes: number): unknown {
  if (event.body === undefined || event.body === null || event.body === "") {
    throw new InvalidBodyError(
      "the request body is empty: send a Helm release Secret or ConfigMap (or a List of them) as JSON, e.g. `kubectl get secret -l owner=helm -o json`",
    );
  }
  const syntax = bodySyntax(event.headers?.["content-type"]);
  const raw = requestBody(event, maxBytes, "import fewer objects per request");
  try {
    return parseImportDocument(raw, { syntax, where: "the request body" });
  } catch (error) {
    // The API's code for every fault of the body; the message is the shared parser's (never quoting the body).
    if (error instanceof InvalidImportDocumentError) throw new InvalidBodyError(error.message, { cause: error });
    throw error;
  }
}
